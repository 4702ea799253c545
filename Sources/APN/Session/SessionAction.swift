package import APNWire

/// What the session asks its driver to do, or reports to the caller. Drained with
/// `GatewaySession.nextAction()` after every input.
package enum SessionAction<Tag> {
    /// Open a connection; answer with `connected` or `connectFailed`.
    case connect
    /// Abort the connection attempt in progress; answer with `connectFailed`.
    case abortConnect
    /// `outboundBytes` holds bytes to write; answer with `bytesWritten` as the socket takes
    /// them. Emitted when the outbound buffer goes from empty to non-empty.
    case write
    /// Close the established connection; answer with `closed`.
    case close
    /// Call `tick` at (or soon after) this time. Replaces any earlier request.
    case scheduleTimer(Timestamp)
    /// A node-apn event.
    case event(SessionEvent<Tag>)
    /// A node-apn `errorCallback(code, notification)` call; the tag is nil where node-apn
    /// passed null.
    case errorCallback(ErrorCallbackCode, Tag?)
    /// The final outcome of one notification. Exactly one per pushed notification.
    case outcome(Tag, NotificationOutcome)
}

/// node-apn's connection events, plus the two that complete `flush` and `shutdown`.
package enum SessionEvent<Tag> {
    /// A connection was established.
    case connected
    /// An established connection closed.
    case disconnected
    /// The connection was idle for `idleTimeout` and is being closed.
    case timeout
    /// A notification's bytes were handed to the socket (not a delivery confirmation).
    case transmitted(Tag)
    /// Everything queued has been written.
    case completed
    /// The gateway (or a local check) refused a notification; nil when the identifier was
    /// not found.
    case transmissionError(StatusCode, Tag?)
    /// An error response named a notification older than the cache holds, by this many.
    case cacheTooSmall(Int)
    /// A connection attempt failed or an established connection broke.
    case socketError(APNError)
    /// An unrecoverable error: credentials, or the connection retry limit.
    case error(APNError)
    /// A requested flush ended; `confirmed` when the gateway answered its marker frame.
    case flushed(confirmed: Bool)
    /// A requested shutdown finished: everything pushed has its outcome, nothing is open.
    case shutdownComplete
}

extension SessionAction: Equatable where Tag: Equatable {}
extension SessionEvent: Equatable where Tag: Equatable {}
