/// What a request's `:path` says about its device token, read in one pass over the bytes.
enum DeviceTokenPath: Equatable {
    /// Not `/3/device/<token>` (another prefix, or a `/` or `?` after the token starts).
    case notADevicePath
    /// `/3/device/` with nothing after it.
    case empty
    /// A token of `length` bytes; `isHex` when every one is a hex digit.
    case token(length: Int, isHex: Bool)

    private static let prefix = Array(RequestValidator.pathPrefix.utf8)

    /// Bits of ``byteKinds``: not a hex digit; a `/` or `?`, which end the path's token.
    private static let notHex: UInt8 = 1
    private static let separator: UInt8 = 2

    /// For each byte value, what it is in a token.
    private static let byteKinds: [UInt8] = (0...255).map { (value: Int) -> UInt8 in
        switch UInt8(value) {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"), UInt8(ascii: "A")...UInt8(ascii: "F"): 0
        case UInt8(ascii: "/"), UInt8(ascii: "?"): notHex | separator
        default: notHex
        }
    }

    /// What the path `bytes` say.
    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        let prefix = Self.prefix
        guard bytes.count >= prefix.count, prefix.indices.allSatisfy({ bytes[$0] == prefix[$0] }) else {
            self = .notADevicePath
            return
        }
        let token = UnsafeBufferPointer(rebasing: bytes[prefix.count...])
        guard !token.isEmpty else {
            self = .empty
            return
        }
        // One table look-up a byte (the switch it replaces cost ~10 instructions a byte).
        var kinds: UInt8 = 0
        for byte in token { kinds |= Self.byteKinds[Int(byte)] }
        if kinds & Self.separator != 0 {
            self = .notADevicePath
            return
        }
        self = .token(length: token.count, isHex: kinds & Self.notHex == 0)
    }
}
