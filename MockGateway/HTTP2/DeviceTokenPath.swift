/// What a request's `:path` says about its device token, read in one pass over the bytes.
enum DeviceTokenPath: Equatable {
    /// Not `/3/device/<token>` (another prefix, or a `/` or `?` after the token starts).
    case notADevicePath
    /// `/3/device/` with nothing after it.
    case empty
    /// A token of `length` bytes; `isHex` when every one is a hex digit.
    case token(length: Int, isHex: Bool)

    private static let prefix = Array(RequestValidator.pathPrefix.utf8)

    init(_ path: String) {
        var path = path
        self = path.withUTF8 { bytes in
            let prefix = Self.prefix
            guard bytes.count >= prefix.count, prefix.indices.allSatisfy({ bytes[$0] == prefix[$0] }) else {
                return .notADevicePath
            }
            let token = UnsafeBufferPointer(rebasing: bytes[prefix.count...])
            guard !token.isEmpty else { return .empty }
            var isHex = true
            for byte in token {
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"),
                    UInt8(ascii: "A")...UInt8(ascii: "F"):
                    continue
                case UInt8(ascii: "/"), UInt8(ascii: "?"): return .notADevicePath
                default: isHex = false
                }
            }
            return .token(length: token.count, isHex: isHex)
        }
    }
}
