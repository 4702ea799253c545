/// `bytes` as lowercase hex, two digits a byte.
public func hexString(_ bytes: some Sequence<UInt8>) -> String {
    hexString(Array(bytes))
}

/// `bytes` as lowercase hex, two digits a byte, after `prefix`: written straight into the
/// string's storage, one allocation.
public func hexString(_ bytes: [UInt8], after prefix: StaticString = "") -> String {
    prefix.withUTF8Buffer { prefix in
        String(unsafeUninitializedCapacity: prefix.count + bytes.count * 2) { buffer in
            _ = buffer.initialize(from: prefix)
            bytes.withUnsafeBufferPointer { writeHexDigits(of: $0, to: UnsafeMutableRawPointer(buffer.baseAddress! + prefix.count)) }
            return prefix.count + bytes.count * 2
        }
    }
}

/// Writes `bytes` as lowercase hex, two digits a byte, to `destination` (room for
/// `2 * bytes.count`). The one hex writer: a device token's `:path` is written for every
/// HTTP/2 request. Four bytes at a time become the eight lanes of a word
/// (``hexDigits(ofFourBytes:)``).
@inlinable
package func writeHexDigits(of bytes: UnsafeBufferPointer<UInt8>, to destination: UnsafeMutableRawPointer) {
    guard let source = bytes.baseAddress else { return }
    var at = 0
    while at + 4 <= bytes.count {
        let word = UInt32(littleEndian: UnsafeRawPointer(source + at).loadUnaligned(as: UInt32.self))
        destination.storeBytes(of: hexDigits(ofFourBytes: word).littleEndian, toByteOffset: 2 * at, as: UInt64.self)
        at += 4
    }
    while at < bytes.count {
        let digits = UInt16(truncatingIfNeeded: hexDigits(ofFourBytes: UInt32(source[at])))
        destination.storeBytes(of: digits.littleEndian, toByteOffset: 2 * at, as: UInt16.self)
        at += 1
    }
}

/// The lowercase hex digits of the four bytes of `word` (the first in its lowest byte) as
/// the eight bytes of a word, the first digit in its lowest: each byte is spread to a
/// 16-bit lane, its high nibble in the lane's low byte and its low nibble in the high one;
/// a nibble of 10 or more (adding 0x76 sets its top bit) gets 0x27 more than `0`'s 0x30,
/// which makes it `a` to `f`. No lane carries into the next.
@inlinable @inline(__always)
package func hexDigits(ofFourBytes word: UInt32) -> UInt64 {
    let lanes: UInt64 = 0x0101_0101_0101_0101
    var spread = UInt64(word)
    spread = (spread | spread << 16) & 0x0000_FFFF_0000_FFFF
    spread = (spread | spread << 8) & 0x00FF_00FF_00FF_00FF
    let nibbles = (spread >> 4) & 0x000F_000F_000F_000F | (spread & 0x000F_000F_000F_000F) << 8
    let letters = ((nibbles &+ lanes &* 0x76) >> 7) & lanes
    return nibbles &+ lanes &* 0x30 &+ letters &* 0x27
}

/// The bytes spelled by `text`: an even number of hex digits (either case) and nothing
/// else, or nil. Strict, for tokens given on command lines and in configurations;
/// `Device` is the lenient reader that strips spaces and `<>` first.
public func bytes(fromHex text: String) -> [UInt8]? {
    bytes(fromHexDigits: text.utf8)
}

/// The bytes spelled by `digits`, ASCII hex digits (either case) two a byte, or nil when
/// one is not a hex digit or their number is odd. The one hex reader: the strict one above,
/// `Device`'s lenient one (which drops every other character first), `apn send`'s tokens
/// file and the literals of tests and fuzz seeds (``bytes(fromHexLiteral:)``) all decode
/// through it. Digits in contiguous storage are read eight at a time.
package func bytes(fromHexDigits digits: some Collection<UInt8>) -> [UInt8]? {
    if let decoded = digits.withContiguousStorageIfAvailable({ bytes(fromHexDigits: $0) }) { return decoded }
    return Array(digits).withUnsafeBufferPointer { bytes(fromHexDigits: $0) }
}

/// ``bytes(fromHexDigits:)-(Collection<UInt8>)`` of digits in memory: sixteen digits at a
/// time as the lanes of two words (``hexLanes(_:)``), eight bytes out; the validity of
/// every lane gathered and looked at once, at the end (a token of 64 digits: about 280
/// instructions, against some 460 when each word was checked and turned into a value);
/// the last two to fourteen digits padded with `0`s.
package func bytes(fromHexDigits digits: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
    guard digits.count.isMultiple(of: 2) else { return nil }
    guard let base = digits.baseAddress, !digits.isEmpty else { return [] }
    var invalid: UInt64 = 0
    let bytes = byteArray(count: digits.count / 2) { bytes in
        let source = UnsafeRawPointer(base)
        let destination = UnsafeMutableRawPointer(bytes.baseAddress!)
        func lanes(_ offset: Int) -> (value: UInt64, invalid: UInt64) {
            hexLanes(UInt64(littleEndian: source.loadUnaligned(fromByteOffset: offset, as: UInt64.self)))
        }
        var at = 0
        while at + 16 <= digits.count {
            let first = lanes(at)
            let second = lanes(at + 8)
            invalid |= first.invalid | second.invalid
            let packed = UInt64(hexBytes(ofLanes: first.value)) | UInt64(hexBytes(ofLanes: second.value)) << 32
            destination.storeBytes(of: packed.littleEndian, toByteOffset: at / 2, as: UInt64.self)
            at += 16
        }
        var rest = digits.count - at
        if rest >= 8 {
            let word = lanes(at)
            invalid |= word.invalid
            destination.storeBytes(of: hexBytes(ofLanes: word.value).littleEndian, toByteOffset: at / 2, as: UInt32.self)
            at += 8
            rest -= 8
        }
        if rest > 0 {
            var word: UInt64 = 0x3030_3030_3030_3030  // "00000000"
            withUnsafeMutableBytes(of: &word) { $0.copyMemory(from: UnsafeRawBufferPointer(start: source + at, count: rest)) }
            let lanes = hexLanes(UInt64(littleEndian: word))
            invalid |= lanes.invalid
            withUnsafeBytes(of: hexBytes(ofLanes: lanes.value).littleEndian) { value in
                (destination + at / 2).copyMemory(from: value.baseAddress!, byteCount: rest / 2)
            }
        }
    }
    return invalid == 0 ? bytes : nil
}

/// The bytes of a hex literal written with optional white space, e.g.
/// `"01 0020 000102…"`: for test vectors and fuzz seeds. Traps on anything else.
package func bytes(fromHexLiteral literal: String) -> [UInt8] {
    let digits = literal.utf8.filter { ![UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\t"), UInt8(ascii: "\r")].contains($0) }
    guard let bytes = bytes(fromHexDigits: digits) else { preconditionFailure("not a hex literal: \(literal)") }
    return bytes
}

/// The value of one ASCII hex digit (either case), or nil.
package func hexValue(_ digit: UInt8) -> UInt8? {
    switch digit {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): digit &- UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): digit &- UInt8(ascii: "a") &+ 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): digit &- UInt8(ascii: "A") &+ 10
    default: nil
    }
}

/// The value of eight hex digits (either case) held as the bytes of `word`, the first
/// digit in its lowest byte; nil unless all eight are hex digits (``hexLanes(_:)``).
@inline(__always)
package func hexValue(ofEightDigits word: UInt64) -> UInt64? {
    let lanes = hexLanes(word)
    // The first digit is the value's most significant: the bytes read big-endian.
    return lanes.invalid == 0 ? UInt64(hexBytes(ofLanes: lanes.value).byteSwapped) : nil
}

/// The value of each of the eight hex digits (either case) held as the bytes of `word`,
/// in its lane (0…15; the first digit in the lowest byte), and `invalid`, nonzero when one
/// of them is not a hex digit (the values then mean nothing): a reader of many words checks
/// once, at the end. Each lane is checked against the ranges `0`…`9` and (case folded)
/// `a`…`f` at once: for a byte below 0x80, adding `0x80 - low` sets its top bit when it is
/// at least `low`, adding `0x7F - high` when it is above `high`, and no lane carries into
/// the next.
@inline(__always)
package func hexLanes(_ word: UInt64) -> (value: UInt64, invalid: UInt64) {
    let lanes: UInt64 = 0x0101_0101_0101_0101
    let tops = lanes &* 0x80
    // A byte of 0x80 or more is no digit; cleared before the ranges, so that no lane carries.
    let ascii = word & ~tops
    let isDigit = (ascii &+ lanes &* (0x80 - 0x30)) & ~(ascii &+ lanes &* (0x7F - 0x39)) & tops
    let folded = ascii | lanes &* 0x20
    let isLetter = (folded &+ lanes &* (0x80 - 0x61)) & ~(folded &+ lanes &* (0x7F - 0x66)) & tops
    let invalid = (word | ~(isDigit | isLetter)) & tops
    // Each lane's value: its low four bits, plus 9 for a letter ('a' is 0x61, 'A' 0x41).
    return ((word & (lanes &* 0x0F)) &+ (isLetter >> 7) &* 9, invalid)
}

/// The four bytes the eight digit values in the lanes of `lanes` (``hexLanes(_:)``) spell,
/// in text order: the first byte, of the first two digits, lowest. Pairs of lanes become
/// bytes (the first digit high) in the even lanes; those close up in pairs, then halves.
@inline(__always)
package func hexBytes(ofLanes lanes: UInt64) -> UInt32 {
    var value = (lanes << 4 | lanes >> 8) & 0x00FF_00FF_00FF_00FF
    value = (value | value >> 8) & 0x0000_FFFF_0000_FFFF
    return UInt32(truncatingIfNeeded: value | value >> 16)
}
