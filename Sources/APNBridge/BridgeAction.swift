package import APNWire

/// What a ``BridgeSession`` asks its driver to do. Drained with
/// ``BridgeSession/nextAction()`` after every input and performed in order: the
/// `remember` actions of an ending come before its error response, so the record holds
/// them before the client can read the response and resend.
package enum BridgeAction: Hashable, Sendable {
    /// Send this notification upstream; report its fate with
    /// ``BridgeSession/answered(_:_:)`` and this ordinal, exactly once.
    case forward(ordinal: Int, BridgedNotification)
    /// Tell the feedback service (the token store) that `token` is unregistered since
    /// `since` (UNIX seconds).
    case queueFeedback(token: [UInt8], since: Int64)
    /// The read window is full: decode no more frames until ``resumeReading``.
    case pauseReading
    /// The read window has room again: decoding may go on.
    case resumeReading
    /// Decode nothing more on this connection, ever: what the client wrote from here on is
    /// neither forwarded nor answered (it resends it after the error response).
    case stopReading
    /// Put this notification into the tenant's record
    /// (``ResendRecord/insert(_:answer:from:now:)``): it was forwarded after the point the
    /// client is told to resend from.
    case remember(Arrival, ResendKey, ResendRecord.Answer)
    /// A notification handed to the record as pending has its answer: pass it to
    /// ``ResendRecord/settle(_:with:now:)``, and hand the relay it returns, if any, to the
    /// session it names.
    case rememberAnswer(Arrival, BridgeAnswer)
    /// Write the binary error response `08 | status | identifier` to the client.
    case writeErrorResponse(StatusCode, identifier: UInt32)
    /// Close the client connection (after writing what was asked before it). A
    /// `writeErrorResponse` not followed by `close` in the same drain is written at once,
    /// the connection still read (rule 9 of ``BridgeSession``); a `close` later ends it.
    case close
    /// A refusal's error response was written and what followed is collected: the client
    /// had written this many notifications after the refused one by the time it stopped
    /// (read before the response was decided, plus collected after it).
    case refusalDistance(Int)
    /// Nothing more will come from this session: no answer is awaited and the connection
    /// is over. The driver may drop it.
    case finished
}
