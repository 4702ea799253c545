/// Base64 with the URL- and filename-safe alphabet and no padding (RFC 4648 §5), as JOSE
/// uses it (RFC 7515 §2). Decoding is strict: one text decodes to one byte string, and
/// every other text is refused.
package enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Each byte's value in the alphabet, or 0xFF for a byte outside it.
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (value, character) in alphabet.enumerated() { table[Int(character)] = UInt8(value) }
        return table
    }()

    /// The unpadded base64url text of `bytes`.
    package static func encode(_ bytes: some Collection<UInt8>) -> String {
        var text: [UInt8] = []
        text.reserveCapacity((bytes.count * 4 + 2) / 3)
        var iterator = bytes.makeIterator()
        while let first = iterator.next() {
            let second = iterator.next()
            let third = iterator.next()
            let group = UInt32(first) << 16 | UInt32(second ?? 0) << 8 | UInt32(third ?? 0)
            let characters = third != nil ? 4 : second != nil ? 3 : 2
            for index in 0..<characters {
                text.append(alphabet[Int(group >> (18 - 6 * UInt32(index)) & 0x3F)])
            }
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The bytes `text` encodes, or `nil` unless it is canonical unpadded base64url: only
    /// characters of the alphabet (no `=`, no whitespace), a length that is not 1 more than
    /// a multiple of 4, and zero in the bits the last character carries beyond the data.
    package static func decode(_ text: some StringProtocol) -> [UInt8]? {
        let characters = text.utf8
        guard characters.count % 4 != 1 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(characters.count * 3 / 4)
        var group: UInt32 = 0
        var count = 0
        for character in characters {
            let value = values[Int(character)]
            guard value != 0xFF else { return nil }
            group = group << 6 | UInt32(value)
            count += 1
            if count == 4 {
                bytes += [UInt8(truncatingIfNeeded: group >> 16), UInt8(truncatingIfNeeded: group >> 8), UInt8(truncatingIfNeeded: group)]
                group = 0
                count = 0
            }
        }
        switch count {
        case 2:  // 12 bits: one byte and 4 spare bits
            guard group & 0xF == 0 else { return nil }
            bytes.append(UInt8(truncatingIfNeeded: group >> 4))
        case 3:  // 18 bits: two bytes and 2 spare bits
            guard group & 0x3 == 0 else { return nil }
            bytes += [UInt8(truncatingIfNeeded: group >> 10), UInt8(truncatingIfNeeded: group >> 2)]
        default:
            break
        }
        return bytes
    }
}
