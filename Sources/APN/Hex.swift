/// Hexadecimal helpers for device tokens. Internal: ``Device`` is the public face.
enum Hex {
    private static let lowercaseDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// The value of an ASCII hex digit (either case), or `nil` for any other byte.
    @inline(__always)
    static func nibble(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte &- UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte &- UInt8(ascii: "a") &+ 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte &- UInt8(ascii: "A") &+ 10
        default: nil
        }
    }

    /// The hex digits of `text` in order, every other character dropped.
    static func digits(in text: String) -> [UInt8] {
        var nibbles: [UInt8] = []
        nibbles.reserveCapacity(64)
        // Hex digits are ASCII, so every byte of a multi-byte UTF-8 sequence is dropped.
        for byte in text.utf8 {
            if let value = nibble(byte) {
                nibbles.append(value)
            }
        }
        return nibbles
    }

    /// Packs pairs of nibbles into bytes. `nibbles.count` must be even.
    static func pack(_ nibbles: [UInt8]) -> [UInt8] {
        precondition(nibbles.count % 2 == 0, "pack needs an even number of nibbles")
        var bytes: [UInt8] = []
        bytes.reserveCapacity(nibbles.count / 2)
        var index = 0
        while index < nibbles.count {
            bytes.append(nibbles[index] << 4 | nibbles[index + 1])
            index += 2
        }
        return bytes
    }

    /// Lowercase hex, two digits per byte.
    static func encode(_ bytes: [UInt8]) -> String {
        String(unsafeUninitializedCapacity: bytes.count * 2) { buffer in
            var index = 0
            for byte in bytes {
                buffer[index] = lowercaseDigits[Int(byte >> 4)]
                buffer[index + 1] = lowercaseDigits[Int(byte & 0x0F)]
                index += 2
            }
            return index
        }
    }
}
