/// Application-Layer Protocol Negotiation (RFC 7301): the wire format both sides exchange
/// and the server's choice. Pure: no OpenSSL calls here.
enum ALPN {
    /// The protocol names in ALPN's wire format: each as one length byte, then its bytes.
    ///
    /// - Throws: ``TLSError/Kind-swift.struct/configuration`` for an empty name or one
    ///   longer than 255 bytes, which the wire format cannot carry.
    static func wireFormat(_ protocols: [String]) throws(TLSError) -> [UInt8] {
        var wire: [UInt8] = []
        for name in protocols {
            let bytes = Array(name.utf8)
            guard (1...255).contains(bytes.count) else {
                throw TLSError(
                    .configuration, "application protocol \"\(name)\" is \(bytes.count) bytes long; ALPN allows 1 to 255")
            }
            wire.append(UInt8(bytes.count))
            wire += bytes
        }
        return wire
    }

    /// The server's choice: the first protocol of `preferred` (wire format) that the client
    /// also offered, as the range of its bytes within `offered` (wire format, from the
    /// peer). `nil` when none is shared or `offered` is malformed.
    static func choose(preferred: [UInt8], offered: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
        guard let offeredNames = names(in: offered) else { return nil }
        return preferred.withUnsafeBufferPointer { preferredBytes in
            for wanted in names(in: preferredBytes) ?? [] {
                let match = offeredNames.first { offered[$0].elementsEqual(preferredBytes[wanted]) }
                if let match { return match }
            }
            return nil
        }
    }

    /// The ranges of the names in a wire-format list, or `nil` when a length byte is zero
    /// or runs past the end.
    private static func names(in wire: UnsafeBufferPointer<UInt8>) -> [Range<Int>]? {
        var ranges: [Range<Int>] = []
        var index = 0
        while index < wire.count {
            let length = Int(wire[index])
            let start = index + 1
            guard length > 0, length <= wire.count - start else { return nil }
            ranges.append(start..<start + length)
            index = start + length
        }
        return ranges
    }
}
