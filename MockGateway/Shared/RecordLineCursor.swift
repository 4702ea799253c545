import APNSupport
import Foundation

/// Writes the pieces of a record-file line into memory a ``RecordLineBuffer`` reserved for
/// it, with raw stores: JSON keys, integers, lowercase hex, and JSON strings escaped by
/// ``JSONStringEscaping``'s rules (the ones every JSON text we write follows), without a
/// `String` built per field.
///
/// Each method works on a local copy of ``position`` and stores it back once: a byte stored
/// through the pointer might, for all the compiler knows, overwrite the cursor itself, so
/// writing through `self.position` would reload it after every byte.
struct RecordLineCursor {
    /// Where the next byte goes.
    private(set) var position: UnsafeMutablePointer<UInt8>

    init(_ position: UnsafeMutablePointer<UInt8>) {
        self.position = position
    }

    /// The most bytes ``quoted(_:)`` writes for `count` bytes of text: the quotes, and six
    /// bytes (`\u00XX`) for each.
    static func maximumQuotedLength(_ count: Int) -> Int { 2 + 6 * count }

    /// The most bytes ``payload(_:)`` writes for a payload of `count` bytes.
    static func maximumPayloadLength(_ count: Int) -> Int {
        #","payload_base64":"#.utf8.count + max(maximumQuotedLength(count), 2 + 4 * ((count + 2) / 3))
    }

    /// The most bytes ``integer(_:)`` writes.
    static let maximumIntegerLength = 20

    /// Two lowercase hex digits for each byte value, in order.
    private static let hexPairs: StaticString = """
        000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f\
        202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f\
        404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f\
        606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f\
        808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f\
        a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf\
        c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf\
        e0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff
        """
    /// The decimal pairs 00 to 99, in order.
    private static let decimalPairs: StaticString = """
        00010203040506070809101112131415161718192021222324252627282930313233343536373839\
        40414243444546474849505152535455565758596061626364656667686970717273747576777879\
        8081828384858687888990919293949596979899
        """

    /// Appends `text` (ASCII: the keys and punctuation of a line) as it is.
    @inline(__always)
    mutating func raw(_ text: StaticString) {
        let count = text.utf8CodeUnitCount
        let source = UnsafeRawPointer(text.utf8Start)
        let target = UnsafeMutableRawPointer(position)
        // Short moves inline instead of a call to memcpy (the count is a constant here).
        if count < 8 {
            for offset in 0..<count { target.storeBytes(of: source.load(fromByteOffset: offset, as: UInt8.self), toByteOffset: offset, as: UInt8.self) }
        } else if count <= 16 {
            // Two overlapping 8-byte moves.
            target.storeBytes(of: source.loadUnaligned(as: UInt64.self), as: UInt64.self)
            (target + count - 8).storeBytes(of: (source + count - 8).loadUnaligned(as: UInt64.self), as: UInt64.self)
        } else {
            target.copyMemory(from: source, byteCount: count)
        }
        position += count
    }

    /// Appends `value` in decimal, with a minus sign when negative.
    mutating func integer(_ value: Int) {
        var cursor = position
        if value < 0 {
            cursor.pointee = UInt8(ascii: "-")
            cursor += 1
        }
        var magnitude = value.magnitude
        var digits = 1
        var bound: UInt = 10
        while magnitude >= bound {
            digits += 1
            guard bound <= UInt.max / 10 else { break }
            bound *= 10
        }
        position = cursor + digits
        // Two digits at a time, from the last.
        var end = UnsafeMutableRawPointer(position)
        let pairs = UnsafeRawPointer(Self.decimalPairs.utf8Start)
        while magnitude >= 10 {
            let (quotient, pair) = magnitude.quotientAndRemainder(dividingBy: 100)
            end -= 2
            end.storeBytes(of: pairs.loadUnaligned(fromByteOffset: Int(pair) * 2, as: UInt16.self), as: UInt16.self)
            magnitude = quotient
            if magnitude == 0 { return }
        }
        (end - 1).storeBytes(of: UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude), as: UInt8.self)
    }

    /// Appends `value` in decimal, or `null`.
    mutating func integer(_ value: Int?) {
        if let value { integer(value) } else { raw("null") }
    }

    /// Appends `bytes` as lowercase hex, two digits a byte.
    mutating func hex(_ bytes: UnsafeRawBufferPointer) {
        let pairs = UnsafeRawPointer(Self.hexPairs.utf8Start)
        var cursor = UnsafeMutableRawPointer(position)
        guard let base = bytes.baseAddress else { return }
        for index in 0..<bytes.count {
            let byte = base.load(fromByteOffset: index, as: UInt8.self)
            cursor.storeBytes(of: pairs.loadUnaligned(fromByteOffset: Int(byte) * 2, as: UInt16.self), as: UInt16.self)
            cursor += 2
        }
        position = cursor.assumingMemoryBound(to: UInt8.self)
    }

    /// Appends `text`, well-formed UTF-8, as a quoted JSON string.
    mutating func quoted(_ text: UnsafeRawBufferPointer) {
        var cursor = position
        cursor.pointee = UInt8(ascii: "\"")
        cursor += 1
        // An index over the base address: the buffer's iterator checks more a byte.
        if let base = text.baseAddress?.assumingMemoryBound(to: UInt8.self) {
            var index = 0
            while index < text.count {
                let byte = base[index]
                index += 1
                if !JSONStringEscaping.needsEscape(byte) {
                    cursor.pointee = byte
                    cursor += 1
                } else {
                    cursor = Self.escape(byte, at: cursor)
                }
            }
        }
        cursor.pointee = UInt8(ascii: "\"")
        position = cursor + 1
    }

    /// Appends `text` as a quoted JSON string.
    mutating func quoted(_ text: String) {
        var text = text
        text.withUTF8 { quoted(UnsafeRawBufferPointer($0)) }
    }

    /// Appends `,"payload":` and the payload as a JSON string when it is UTF-8, else
    /// `,"payload_base64":` and its standard base64 (rare: a binary-gateway payload that is
    /// not text).
    mutating func payload(_ bytes: UnsafeRawBufferPointer) {
        if Self.isUTF8(bytes) {
            raw(#","payload":"#)
            quoted(bytes)
        } else {
            raw(#","payload_base64":"#)
            quoted(Data(bytes).base64EncodedString())
        }
    }

    /// Writes the escape of `byte` at `cursor`, by ``JSONStringEscaping``'s rules; where the
    /// next byte goes.
    private static func escape(_ byte: UInt8, at cursor: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
        cursor[0] = UInt8(ascii: "\\")
        if let letter = JSONStringEscaping.shortEscape(for: byte) {
            cursor[1] = letter
            return cursor + 2
        }
        cursor[1] = UInt8(ascii: "u")
        cursor[2] = UInt8(ascii: "0")
        cursor[3] = UInt8(ascii: "0")
        UnsafeMutableRawPointer(cursor + 4).storeBytes(
            of: UnsafeRawPointer(hexPairs.utf8Start).loadUnaligned(fromByteOffset: Int(byte) * 2, as: UInt16.self),
            as: UInt16.self)
        return cursor + 6
    }

    /// Whether `bytes` are well-formed UTF-8 (Unicode Table 3-7: no overlong forms, no
    /// surrogates, nothing beyond U+10FFFF), as `String(validating:as: UTF8.self)` decides.
    static func isUTF8(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        var index = 0
        let count = bytes.count
        while index < count {
            // ASCII eight bytes at a time.
            if index + 8 <= count && base.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
                index += 8
                continue
            }
            let lead = bytes[index]
            if lead < 0x80 {
                index += 1
                continue
            }
            guard let (length, second) = UTF8Check.sequence(startingWith: lead), index + length <= count, second.contains(bytes[index + 1]) else { return false }
            for offset in 2..<length where bytes[index + offset] & 0xC0 != 0x80 { return false }
            index += length
        }
        return true
    }
}
