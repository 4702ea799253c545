/// String escaping exactly as JavaScript's `JSON.stringify` does it:
///
/// - `"` → `\"`, `\` → `\\`, and U+0008, U+0009, U+000A, U+000C, U+000D → `\b` `\t` `\n`
///   `\f` `\r`;
/// - every other code point below U+0020 → `\u00XX`, lowercase hex;
/// - everything else as is, including `/`, U+007F, U+2028, U+2029 and all non-ASCII text
///   (written as raw UTF-8).
///
/// ``escapedLength(of:in:)`` measures the same rules, so trimming and writing agree.
enum JSONStringEscaping {
    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// Appends `string` escaped, without quotes.
    static func appendEscaped(_ string: String, to bytes: inout [UInt8]) {
        var string = string
        string.withUTF8 { utf8 in
            appendEscaped(utf8, to: &bytes)
        }
    }

    /// Appends UTF-8 text escaped, copying runs that need no escaping in one go.
    static func appendEscaped(_ utf8: UnsafeBufferPointer<UInt8>, to bytes: inout [UInt8]) {
        var runStart = 0
        for index in utf8.indices {
            let byte = utf8[index]
            if byte >= 0x20 && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\") {
                continue
            }
            if runStart < index {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
            }
            appendEscape(for: byte, to: &bytes)
            runStart = index + 1
        }
        if runStart < utf8.count {
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...]))
        }
    }

    /// The escaped form of `string`, without quotes, as a String.
    static func escaped(_ string: String) -> String {
        var bytes: [UInt8] = []
        appendEscaped(string, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// How many bytes the escaped form of `scalar` takes in `encoding`.
    static func escapedLength(of scalar: Unicode.Scalar, in encoding: PayloadEncoding) -> Int {
        let asciiCharacters: Int
        switch scalar.value {
        case 0x22, 0x5C, 0x08, 0x09, 0x0A, 0x0C, 0x0D:
            asciiCharacters = 2
        case 0x00..<0x20:
            asciiCharacters = 6
        default:
            switch encoding {
            case .utf8: return scalar.utf8.count
            case .ucs2: return scalar.utf16.count * 2
            }
        }
        switch encoding {
        case .utf8: return asciiCharacters
        case .ucs2: return asciiCharacters * 2
        }
    }

    private static func appendEscape(for byte: UInt8, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""): bytes.append(UInt8(ascii: "\""))
        case UInt8(ascii: "\\"): bytes.append(UInt8(ascii: "\\"))
        case 0x08: bytes.append(UInt8(ascii: "b"))
        case 0x09: bytes.append(UInt8(ascii: "t"))
        case 0x0A: bytes.append(UInt8(ascii: "n"))
        case 0x0C: bytes.append(UInt8(ascii: "f"))
        case 0x0D: bytes.append(UInt8(ascii: "r"))
        default:
            bytes.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
            bytes.append(hexDigits[Int(byte >> 4)])
            bytes.append(hexDigits[Int(byte & 0x0F)])
        }
    }
}
