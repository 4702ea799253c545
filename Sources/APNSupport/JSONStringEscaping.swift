/// JSON string escaping, one set of rules for every JSON text we write (RFC 8259 §7, exactly
/// as JavaScript's `JSON.stringify` escapes, so payloads match node-apn's byte for byte):
///
/// - `"` → `\"`, `\` → `\\`, and U+0008, U+0009, U+000A, U+000C, U+000D → `\b` `\t` `\n`
///   `\f` `\r`;
/// - every other code point below U+0020 → `\u00XX`, lowercase hex;
/// - everything else as is, including `/`, U+007F, U+2028, U+2029 and all non-ASCII text
///   (written as raw UTF-8).
///
/// Payloads (APN's JSON writer), the JWT header and claims APNTLS signs, the mocks' record
/// lines and the `apn` command's output lines all escape through here.
package enum JSONStringEscaping {
    /// Lowercase hex digits, for `\u00XX`.
    package static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// Whether `byte` (a UTF-8 code unit) must be escaped: a control character, `"` or `\`.
    /// Bytes of multi-byte sequences are never escaped.
    @inline(__always)
    package static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }

    /// The letter after the backslash of `byte`'s two-character escape (`"` `\` `b` `t` `n`
    /// `f` `r`), or `nil` when `byte` takes the six-character `\u00XX` form.
    @inline(__always)
    package static func shortEscape(for byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): byte
        case 0x08: UInt8(ascii: "b")
        case 0x09: UInt8(ascii: "t")
        case 0x0A: UInt8(ascii: "n")
        case 0x0C: UInt8(ascii: "f")
        case 0x0D: UInt8(ascii: "r")
        default: nil
        }
    }

    /// Appends `string` escaped, without quotes.
    package static func appendEscaped(_ string: String, to bytes: inout [UInt8]) {
        var string = string
        string.withUTF8 { utf8 in
            appendEscaped(utf8, to: &bytes)
        }
    }

    /// Appends UTF-8 text escaped, copying runs that need no escaping in one go.
    package static func appendEscaped(_ utf8: UnsafeBufferPointer<UInt8>, to bytes: inout [UInt8]) {
        var runStart = 0
        for index in utf8.indices where needsEscape(utf8[index]) {
            if runStart < index {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
            }
            appendEscape(for: utf8[index], to: &bytes)
            runStart = index + 1
        }
        if runStart < utf8.count {
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...]))
        }
    }

    /// The escaped form of `string`, without quotes.
    package static func escaped(_ string: String) -> String {
        var bytes: [UInt8] = []
        appendEscaped(string, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `text` as a JSON string literal: escaped, between quotes.
    package static func quoted(_ text: String) -> String {
        var bytes: [UInt8] = [UInt8(ascii: "\"")]
        appendEscaped(text, to: &bytes)
        bytes.append(UInt8(ascii: "\""))
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func appendEscape(for byte: UInt8, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\\"))
        if let letter = shortEscape(for: byte) {
            bytes.append(letter)
        } else {
            bytes.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
            bytes.append(hexDigits[Int(byte >> 4)])
            bytes.append(hexDigits[Int(byte & 0x0F)])
        }
    }
}
