/// Writes JSON string literals (RFC 8259 §7), for the fixed-shape JSON objects built by
/// hand: the JWT header and claims APNTLS signs (their bytes, and so their signatures, stay
/// predictable) and the `apn` command's output lines.
package enum JSONText {
    /// `text` as a JSON string literal: quoted, with `"`, `\`, newline, carriage return and
    /// tab escaped as such, other control characters as `\u00XX`, everything else
    /// (non-ASCII included) kept as it is.
    package static func quoted(_ text: String) -> String {
        var literal = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": literal += "\\\""
            case "\\": literal += "\\\\"
            case "\n": literal += "\\n"
            case "\r": literal += "\\r"
            case "\t": literal += "\\t"
            case "\u{00}"..."\u{1F}":
                let digits = String(scalar.value, radix: 16, uppercase: false)
                literal += "\\u" + String(repeating: "0", count: 4 - digits.count) + digits
            default: literal.unicodeScalars.append(scalar)
            }
        }
        return literal + "\""
    }
}
