import APNWire

/// UUIDs as APNs writes them in `apns-id` and `apns-unique-id`: 36 characters, five groups
/// of hex digits (8-4-4-4-12) separated by hyphens.
package enum UUIDText {
    /// Whether `text` is a UUID in that canonical form (hex digits in either case).
    package static func isCanonical(_ text: String) -> Bool {
        var count = 0
        for byte in text.utf8 {
            switch count {
            case 8, 13, 18, 23: guard byte == UInt8(ascii: "-") else { return false }
            default: guard hexValue(byte) != nil else { return false }
            }
            count += 1
            if count > 36 { return false }
        }
        return count == 36
    }

}

/// Makes the UUIDs a connection answers with (lowercase, version 4 and RFC 9562 variant
/// bits set), cheaply: 64 random bits drawn once per connection, then a counter that
/// starts at a random value. Unique within the connection and, with overwhelming
/// probability, across connections; not unpredictable, which an `apns-id` need not be.
package struct UUIDSequence {
    private let high: UInt64
    private var low: UInt64

    package init() {
        var random = SystemRandomNumberGenerator()
        // Version 4 in bits 12–15 of the third group.
        high = random.next() & ~0xF000 | 0x4000
        low = random.next()
    }

    /// The next UUID.
    package mutating func next() -> String {
        low &+= 1
        // Variant 0b10 in the top bits of the fourth group.
        let variantLow = low & ~(0xC000 << 48) | (0x8000 << 48)
        return String(unsafeUninitializedCapacity: 36) { buffer in
            var index = 0
            // One group of hex digits, preceded by a hyphen unless it is the first.
            func group(_ value: UInt64, digits: Int) {
                if index > 0 {
                    buffer[index] = UInt8(ascii: "-")
                    index += 1
                }
                var shift = (digits - 1) * 4
                while shift >= 0 {
                    buffer[index] = Self.digits[Int(value >> UInt64(shift) & 0xF)]
                    index += 1
                    shift -= 4
                }
            }
            group(high >> 32, digits: 8)
            group(high >> 16 & 0xFFFF, digits: 4)
            group(high & 0xFFFF, digits: 4)
            group(variantLow >> 48, digits: 4)
            group(variantLow & 0xFFFF_FFFF_FFFF, digits: 12)
            return index
        }
    }

    private static let digits: [UInt8] = Array("0123456789abcdef".utf8)
}
