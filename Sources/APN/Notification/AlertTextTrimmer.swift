/// The text surgery behind ``Notification/trim(toLength:)``, on its own so it can be
/// tested without a payload around it.
///
/// node-apn escapes the text, cuts the escaped form to a byte count, strips a dangling
/// `\u` with 0–3 hex digits, drops one backslash if the trailing run is odd, and unescapes.
/// Cutting the escaped form at a byte count and then removing every incomplete piece is the
/// same as keeping the longest run of whole code points whose escaped forms fit the count,
/// which is what this does: an escape sequence is kept whole or dropped whole, and so is a
/// UTF-8 sequence or a UTF-16 surrogate pair. No unescaping pass is needed.
enum AlertTextTrimmer {
    /// The result of a successful cut.
    struct Cut: Equatable {
        /// The shortened text.
        var text: String
        /// How many escaped bytes (in the encoding) were removed; at least the number asked.
        var removedBytes: Int
    }

    /// The length of `text` once JSON-escaped (without quotes), in `encoding`.
    static func escapedLength(of text: String, in encoding: PayloadEncoding) -> Int {
        var total = 0
        for scalar in text.unicodeScalars {
            total += JSONStringEscaping.escapedLength(of: scalar, in: encoding)
        }
        return total
    }

    /// Shortens `text` so its escaped form is at least `excess` bytes shorter.
    ///
    /// - Parameters:
    ///   - excess: How many escaped bytes must go; more than zero.
    ///   - atWordEnd: If the cut falls inside a word (the code point after it is not a
    ///     space), cut back to the last space, which is removed too. When the kept text
    ///     has no space, the hard cut stays, as in node-apn: a first word longer than the
    ///     room is cut rather than dropped entirely.
    /// - Returns: `nil` when the whole escaped text is shorter than `excess`, so no cut can
    ///   make the payload fit.
    static func cut(
        _ text: String,
        removing excess: Int,
        in encoding: PayloadEncoding,
        atWordEnd: Bool
    ) -> Cut? {
        let total = escapedLength(of: text, in: encoding)
        guard total >= excess else {
            return nil
        }
        let budget = total - excess
        let scalars = text.unicodeScalars
        var end = scalars.startIndex
        var kept = 0
        var lastSpace: (index: String.Index, kept: Int)?
        while end != scalars.endIndex {
            let scalar = scalars[end]
            let length = JSONStringEscaping.escapedLength(of: scalar, in: encoding)
            if kept + length > budget {
                break
            }
            if scalar == " " {
                lastSpace = (end, kept)
            }
            kept += length
            end = scalars.index(after: end)
        }
        if atWordEnd, end != scalars.endIndex, scalars[end] != " ", let lastSpace {
            end = lastSpace.index
            kept = lastSpace.kept
        }
        let shortened = String(Substring(scalars[..<end]))
        return Cut(text: shortened, removedBytes: total - kept)
    }
}
