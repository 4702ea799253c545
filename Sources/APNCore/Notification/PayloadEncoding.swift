/// The character encoding of a notification's payload bytes, as node-apn's `encoding`.
public enum PayloadEncoding: String, Hashable, Sendable, CaseIterable {
    /// UTF-8, node-apn's default and what Apple expected.
    case utf8
    /// node-apn's `"ucs2"`: UTF-16 little-endian, two bytes per UTF-16 code unit (four for
    /// a character outside the Basic Multilingual Plane, such as most emoji). It doubles
    /// the size of ASCII text, so a 256-byte limit holds only about 127 characters.
    case ucs2

    /// Encodes UTF-8 JSON bytes in this encoding.
    func encode(utf8 bytes: [UInt8]) -> [UInt8] {
        switch self {
        case .utf8:
            return bytes
        case .ucs2:
            let text = String(decoding: bytes, as: UTF8.self)
            var encoded: [UInt8] = []
            encoded.reserveCapacity(bytes.count * 2)
            for unit in text.utf16 {
                encoded.append(UInt8(truncatingIfNeeded: unit))
                encoded.append(UInt8(truncatingIfNeeded: unit >> 8))
            }
            return encoded
        }
    }

    /// Decodes bytes in this encoding into a String (an odd trailing byte is ignored).
    func decode(_ bytes: [UInt8]) -> String {
        switch self {
        case .utf8:
            return String(decoding: bytes, as: UTF8.self)
        case .ucs2:
            var units: [UInt16] = []
            units.reserveCapacity(bytes.count / 2)
            var index = 0
            while index + 1 < bytes.count {
                units.append(UInt16(bytes[index]) | UInt16(bytes[index + 1]) << 8)
                index += 2
            }
            return String(decoding: units, as: UTF16.self)
        }
    }
}
