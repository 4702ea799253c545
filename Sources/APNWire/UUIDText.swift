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
        guard bytes.count == 36, let base = bytes.baseAddress else { return nil }
        let raw = UnsafeRawPointer(base)
        guard base[8] == hyphen, base[13] == hyphen, base[18] == hyphen, base[23] == hyphen else { return nil }
        // Eight digits at a time, as the lanes of a word (a table look-up a digit cost about
        // 370 instructions a UUID, read from every response): 8-4-4-4-12 as four words,
        // each with its lanes in text order, the first byte lowest, on any byte order.
        func word(_ offset: Int) -> UInt64 {
            UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
        }
        func word(_ first: Int, _ second: Int) -> UInt64 {
            UInt64(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: first, as: UInt32.self)))
                | UInt64(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: second, as: UInt32.self))) << 32
        }
        guard let a = hexValue(ofEightDigits: word(0)), let b = hexValue(ofEightDigits: word(9, 14)),
            let c = hexValue(ofEightDigits: word(19, 24)), let d = hexValue(ofEightDigits: word(28))
        else { return nil }
        return (a << 32 | b, c << 32 | d)
    }

    private static let hyphen = UInt8(ascii: "-")

    /// `value` in the canonical form, lowercase.
    package static func text(high: UInt64, low: UInt64) -> String {
        String(unsafeUninitializedCapacity: length) { buffer in
            write(high: high, low: low, to: buffer.baseAddress!)
            return length
        }
    }

    /// The length of the canonical form (a constant, not a stored global: no lazy
    /// initialisation check where another module reads it).
    package static var length: Int { 36 }

    /// Writes `value` in the canonical form, lowercase, to the ``length`` bytes at
    /// `destination`: a gateway writes the `apns-id` it made for an answer straight into
    /// the response's field, with no string between (making one, with its UTF-8 check, cost
    /// several times the writing).
    package static func write(high: UInt64, low: UInt64, to destination: UnsafeMutablePointer<UInt8>) {
        // The digits of one group, least significant last, at `offset`; each nibble turned
        // into its digit by arithmetic (`9 &- n` has its top bit set just for 10…15).
        @inline(__always)
        func group(_ value: UInt64, digits: Int, at offset: Int) {
            var value = value
            var index = offset + digits - 1
            while index >= offset {
                let nibble = UInt8(truncatingIfNeeded: value & 0xF)
                destination[index] = nibble &+ UInt8(ascii: "0") &+ ((9 &- nibble) >> 7) &* 39
                value >>= 4
                index -= 1
            }
        }
        group(high >> 32, digits: 8, at: 0)
        destination[8] = hyphen
        group(high >> 16 & 0xFFFF, digits: 4, at: 9)
        destination[13] = hyphen
        group(high & 0xFFFF, digits: 4, at: 14)
        destination[18] = hyphen
        group(low >> 48, digits: 4, at: 19)
        destination[23] = hyphen
        group(low & 0xFFFF_FFFF_FFFF, digits: 12, at: 24)
    }
}
