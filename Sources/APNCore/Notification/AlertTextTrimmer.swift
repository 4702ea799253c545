import APNSupport
/// The text surgery behind ``Notification/trim(toLength:)``, on its own so it can be
/// tested without a payload around it.
///
/// node-apn escapes the text, cuts the escaped form to a byte count, strips a dangling
/// `\u` with 0–3 hex digits, drops one backslash if the trailing run is odd, and unescapes.
/// Cutting the escaped form at a byte count and then removing every incomplete piece is the
/// same as keeping the longest run of whole code points whose escaped forms fit the count,
/// which is what this does: an escape sequence is kept whole or dropped whole, and so is a
/// UTF-8 sequence or a UTF-16 surrogate pair. No unescaping pass is needed.
///
/// One quirk is kept so the result is node-apn's to the byte: its `\u` pattern also matches
/// the text's own backslash (escaped `\\`) followed by `u` and at most three hex digits at
/// the end of the cut, and its backslash rule then drops that backslash too. So a kept text
/// ending in a literal `\u`, `\u0`, `\u00` or `\u004` loses those characters as well —
/// unless the cut fell inside the next character's escape sequence, which the pattern
/// removes instead.
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
    ///   - atWordEnd: If the cut falls inside a word, cut back to the last space, which is
    ///     removed too. When the kept text has no space, the hard cut stays, as in node-apn:
    ///     a first word longer than the room is cut rather than dropped entirely. "Inside a
    ///     word" is node-apn's test, see ``cutEndsAWord(_:at:room:in:)``.
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
        var cutsAnEscape = cutsInsideAnEscape(scalars, at: end, room: budget - kept, in: encoding)
        if atWordEnd, !cutEndsAWord(scalars, at: end, room: budget - kept, in: encoding), let lastSpace {
            end = lastSpace.index
            kept = lastSpace.kept
            cutsAnEscape = false
        }
        if !cutsAnEscape, let start = unicodeEscapeLookalike(before: end, in: scalars) {
            for scalar in scalars[start..<end] {
                kept -= JSONStringEscaping.escapedLength(of: scalar, in: encoding)
            }
            end = start
        }
        let shortened = String(Substring(scalars[..<end]))
        return Cut(text: shortened, removedBytes: total - kept)
    }

    /// The character a cut before `end` would drop first; nil for a cut at the end (none).
    private static func scalar(_ scalars: String.UnicodeScalarView, at end: String.Index) -> Unicode.Scalar? {
        end == scalars.endIndex ? nil : scalars[end]
    }

    /// Whether node-apn's byte cut keeps part of the escape sequence of `scalars[end]` (at
    /// least one of its characters: `room` bytes of it fit, one character being one byte in
    /// UTF-8 and two in UCS-2). node-apn's patterns then remove that part, and the text
    /// before it is left alone.
    static func cutsInsideAnEscape(
        _ scalars: String.UnicodeScalarView,
        at end: String.Index,
        room: Int,
        in encoding: PayloadEncoding
    ) -> Bool {
        guard let scalar = scalar(scalars, at: end) else { return false }
        let escaped = scalar.isASCII && JSONStringEscaping.escapedLength(of: scalar, in: .utf8) > 1
        return escaped && room >= (encoding == .utf8 ? 1 : 2)
    }

    /// Where a literal backslash, `u` and at most three hex digits end the text before
    /// `end`, the characters node-apn's pattern for a cut `\uXXXX` escape removes; `nil` if
    /// they do not.
    static func unicodeEscapeLookalike(
        before end: String.Index,
        in scalars: String.UnicodeScalarView
    ) -> String.Index? {
        var index = end
        var hexDigits = 0
        while index != scalars.startIndex {
            let previous = scalars.index(before: index)
            guard scalars[previous].properties.isASCIIHexDigit else {
                break
            }
            hexDigits += 1
            index = previous
            if hexDigits > 3 {
                return nil
            }
        }
        guard index != scalars.startIndex else {
            return nil
        }
        let u = scalars.index(before: index)
        guard scalars[u] == "u", u != scalars.startIndex else {
            return nil
        }
        let backslash = scalars.index(before: u)
        return scalars[backslash] == "\\" ? backslash : nil
    }

    /// Whether a cut before `scalars[end]` ends a word, by node-apn's test: the character
    /// after the cut is a space.
    ///
    /// node-apn cuts the escaped text's bytes, decodes them, and looks at the character of
    /// the uncut text at the decoded length. When the bytes end inside a UTF-8 sequence,
    /// the decoded text ends with one U+FFFD standing for the partial character (`room` of
    /// its bytes fit, 0 < `room`), so node-apn looks one character further: past the partial
    /// character when it is one UTF-16 unit long (a space there ends the word, and the
    /// partial word is kept), at its second half when it is two (never a space). A cut
    /// inside an escape sequence or between UTF-16 units looks at the cut character itself.
    static func cutEndsAWord(
        _ scalars: String.UnicodeScalarView,
        at end: String.Index,
        room: Int,
        in encoding: PayloadEncoding
    ) -> Bool {
        guard let scalar = scalar(scalars, at: end) else { return true }
        let partialUTF8 = encoding == .utf8 && room > 0 && scalar.value >= 0x80
        guard partialUTF8 else {
            return scalar == " "
        }
        guard scalar.value <= 0xFFFF else {
            return false
        }
        let next = scalars.index(after: end)
        return next != scalars.endIndex && scalars[next] == " "
    }
}
