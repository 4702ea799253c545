extension Notification {
    /// Shortens the alert text so the payload fits `limit` bytes (node-apn's `trim()`).
    ///
    /// 1. If ``length()`` is within `limit`, nothing changes and the result is `0`.
    /// 2. Without alert text (no alert, an empty one, a dictionary without `body`, or an
    ///    ``mdm`` payload, which has no alert), nothing changes and the result is the
    ///    negated excess, `limit − length()`.
    /// 3. If even removing the whole text would not be enough, nothing changes and the
    ///    result is `escapedTextLength − excess`, negative.
    /// 4. Otherwise the text is cut so its JSON-escaped form loses at least the excess:
    ///    never inside an escape sequence (`\n`, `\"`, `\u0001`), a UTF-8 sequence or a
    ///    UTF-16 surrogate pair; with ``truncateAtWordEnd``, back to the last space (a hard
    ///    cut when the kept text has no space). The text is set with ``setAlertText(_:)``
    ///    and the result is the number of escaped bytes removed, in ``encoding``.
    ///
    /// Whenever the result is `0` or more, ``length()`` is at most `limit` afterwards.
    ///
    /// - Parameter limit: The payload size to fit, in bytes. node-apn's default, 2048, is
    ///   command 2's limit; pass ``payloadLimit(for:voip:)`` for other commands.
    /// - Returns: See above: `0` (already fits), a positive count (trimmed), or a negative
    ///   number (could not trim enough; unchanged).
    @discardableResult
    public func trim(toLength limit: Int = 2048) -> Int {
        withState { $0.trim(toLength: limit) }
    }
}

extension NotificationState {
    mutating func trim(toLength limit: Int) -> Int {
        let excess = compiledPayload().count - limit
        if excess <= 0 {
            return 0
        }
        guard mdm == nil, let text = alert?.text, !text.isEmpty else {
            return -excess
        }
        guard
            let cut = AlertTextTrimmer.cut(
                text, removing: excess, in: encoding, atWordEnd: truncateAtWordEnd)
        else {
            return AlertTextTrimmer.escapedLength(of: text, in: encoding) - excess
        }
        setAlertText(cut.text)
        return cut.removedBytes
    }
}
