/// `bytes` as lowercase hex, two digits a byte.
public func hexString(_ bytes: some Sequence<UInt8>) -> String {
    hexString(Array(bytes))
}

/// `bytes` as lowercase hex, two digits a byte, after `prefix`: written straight into the
/// string's storage, one allocation (a device token's `:path` is made for every HTTP/2
/// request).
public func hexString(_ bytes: [UInt8], after prefix: StaticString = "") -> String {
    prefix.withUTF8Buffer { prefix in
        String(unsafeUninitializedCapacity: prefix.count + bytes.count * 2) { buffer in
            _ = buffer.initialize(from: prefix)
            let digits: StaticString = "0123456789abcdef"
            digits.withUTF8Buffer { digits in
                for (index, byte) in bytes.enumerated() {
                    buffer[prefix.count + 2 * index] = digits[Int(byte >> 4)]
                    buffer[prefix.count + 2 * index + 1] = digits[Int(byte & 0x0F)]
                }
            }
            return prefix.count + bytes.count * 2
        }
    }
}

/// The bytes spelled by `text`: an even number of hex digits (either case) and nothing
/// else, or nil. Strict, for tokens given on command lines and in configurations;
/// `Device` is the lenient reader that strips spaces and `<>` first.
public func bytes(fromHex text: String) -> [UInt8]? {
    bytes(fromHexDigits: text.utf8)
}

/// The bytes spelled by `digits`, ASCII hex digits (either case) two a byte, or nil when
/// one is not a hex digit or their number is odd. The one hex reader: the strict one above,
/// `Device`'s lenient one (which drops every other character first) and the literals of
/// tests and fuzz seeds (``bytes(fromHexLiteral:)``) all decode through it.
package func bytes(fromHexDigits digits: some Collection<UInt8>) -> [UInt8]? {
    guard digits.count.isMultiple(of: 2) else { return nil }
    var valid = true
    let bytes = byteArray(count: digits.count / 2) { bytes in
        var index = digits.startIndex
        for position in bytes.indices {
            let next = digits.index(after: index)
            guard let high = hexValue(digits[index]), let low = hexValue(digits[next]) else {
                valid = false
                bytes.initialize(repeating: 0)
                return
            }
            bytes[position] = high << 4 | low
            index = digits.index(after: next)
        }
    }
    return valid ? bytes : nil
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

