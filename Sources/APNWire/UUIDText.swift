/// UUIDs as APNs writes them in `apns-id` and `apns-unique-id`: 36 characters, five groups
/// of hex digits (8-4-4-4-12) separated by hyphens. Read and written here by hand, for the
/// provider reads one from every response: Foundation's `UUID(uuidString:)` parses with
/// `sscanf`, about 8,700 instructions a call, against some 200 here.
package enum UUIDText {
    /// Whether `text` is a UUID in that canonical form (hex digits in either case).
    package static func isCanonical(_ text: String) -> Bool {
        value(of: text) != nil
    }

    /// The 128 bits of a canonical UUID `text` (hex digits in either case), most
    /// significant half first; nil for anything else.
    package static func value(of text: String) -> (high: UInt64, low: UInt64)? {
        var text = text
        return text.withUTF8 { bytes -> (high: UInt64, low: UInt64)? in
            guard bytes.count == 36 else { return nil }
            var high: UInt64 = 0
            var low: UInt64 = 0
            var digits = 0
            for (index, byte) in bytes.enumerated() {
                if index == 8 || index == 13 || index == 18 || index == 23 {
                    guard byte == UInt8(ascii: "-") else { return nil }
                    continue
                }
                guard let nibble = hexValue(byte) else { return nil }
                if digits < 16 {
                    high = high << 4 | UInt64(nibble)
                } else {
                    low = low << 4 | UInt64(nibble)
                }
                digits += 1
            }
            return (high, low)
        }
    }

    /// `value` in the canonical form, lowercase.
    package static func text(high: UInt64, low: UInt64) -> String {
        String(unsafeUninitializedCapacity: 36) { buffer in
            var index = 0
            // One group of hex digits, preceded by a hyphen unless it is the first.
            func group(_ value: UInt64, digits: Int) {
                if index > 0 {
                    buffer[index] = UInt8(ascii: "-")
                    index += 1
                }
                var shift = (digits - 1) * 4
                while shift >= 0 {
                    buffer[index] = lowercaseDigits[Int(value >> UInt64(shift) & 0xF)]
                    index += 1
                    shift -= 4
                }
            }
            group(high >> 32, digits: 8)
            group(high >> 16 & 0xFFFF, digits: 4)
            group(high & 0xFFFF, digits: 4)
            group(low >> 48, digits: 4)
            group(low & 0xFFFF_FFFF_FFFF, digits: 12)
            return index
        }
    }

    private static let lowercaseDigits: [UInt8] = Array("0123456789abcdef".utf8)
}
