import APNWire

/// Lenient hex reading for device tokens (node-apn strips every non-hex character).
/// Internal: ``Device`` is the public face; strict reading and writing live in APNWire.
enum Hex {
    /// The hex digits of `text` in order, every other character dropped.
    static func digits(in text: String) -> [UInt8] {
        var nibbles: [UInt8] = []
        nibbles.reserveCapacity(64)
        // Hex digits are ASCII, so every byte of a multi-byte UTF-8 sequence is dropped.
        for byte in text.utf8 {
            if let value = hexValue(byte) {
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
}
