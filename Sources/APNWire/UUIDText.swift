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
        return text.withUTF8 { value(of: $0) }
    }

    /// ``value(of:)-(String)`` of UTF-8 bytes (a response field's value as received).
    package static func value(of bytes: UnsafeBufferPointer<UInt8>) -> (high: UInt64, low: UInt64)? {
        guard bytes.count == 36, bytes[8] == hyphen, bytes[13] == hyphen, bytes[18] == hyphen, bytes[23] == hyphen
        else { return nil }
        // The groups' digits by position, through a table: no branch per byte but the
        // check, for one is read from every response (a loop testing each index for a
        // hyphen cost about 1,000 instructions).
        var high: UInt64 = 0
        var low: UInt64 = 0
        var invalid: UInt8 = 0
        for index in 0..<8 { accumulate(bytes[index], into: &high, invalid: &invalid) }
        for index in 9..<13 { accumulate(bytes[index], into: &high, invalid: &invalid) }
        for index in 14..<18 { accumulate(bytes[index], into: &high, invalid: &invalid) }
        for index in 19..<23 { accumulate(bytes[index], into: &low, invalid: &invalid) }
        for index in 24..<36 { accumulate(bytes[index], into: &low, invalid: &invalid) }
        return invalid & 0x10 == 0 ? (high, low) : nil
    }

    private static let hyphen = UInt8(ascii: "-")

    /// Shifts hex digit `byte` into `value`; a byte that is not one sets bit 4 of `invalid`.
    @inline(__always)
    private static func accumulate(_ byte: UInt8, into value: inout UInt64, invalid: inout UInt8) {
        let nibble = nibbles[Int(byte)]
        invalid |= nibble
        value = value << 4 | UInt64(nibble & 0xF)
    }

    /// Each byte's hex value, or 0x10 for a byte that is no hex digit.
    private static let nibbles: [UInt8] = (0...255).map { byte in hexValue(UInt8(byte)) ?? 0x10 }

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
