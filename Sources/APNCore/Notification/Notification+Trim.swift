import APNWire

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
    /// - Parameter limit: The payload size to fit, in bytes: by default
    ///   ``defaultTrimLength`` (256), which a ``Connection`` with default options accepts.
    ///   For command 2 pass `Notification.payloadLimit(for: .frame)` (2048, node-apn
    ///   1.7.8's default) or ``payloadLimit(for:voip:)`` of the connection's format.
    /// - Returns: See above: `0` (already fits), a positive count (trimmed), or a negative
    ///   number (could not trim enough; unchanged).
    @discardableResult
    public func trim(toLength limit: Int = Notification.defaultTrimLength) -> Int {
        withState { $0.trim(toLength: limit) }
    }

    /// The length ``trim(toLength:)`` fits when given none: 256 bytes, the payload limit of
    /// command 1, the format a ``Connection`` sends with default options, so a notification
    /// trimmed with the default is one that connection accepts. node-apn 1.7.8's default
    /// was 2048, the limit of the command 2 it always sent.
    public static let defaultTrimLength = Command.enhanced.payloadLimit
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
