package import APNWire

/// What the session asks its driver to do, or reports to the caller. Drained with
/// `GatewaySession.nextAction()` after every input.
package enum SessionAction<Record: AnyObject> {
    /// Open a connection; answer with `connected` or `connectFailed`.
    case connect
    /// Abort the connection attempt in progress; answer with `connectFailed`.
    case abortConnect
    /// `outboundBytes` holds bytes to write; answer with `bytesWritten` as the socket takes
    /// them. Emitted when the outbound buffer goes from empty to non-empty.
    case write
    /// Close the established connection; answer with `closed`. `reset`: with a TCP reset,
    /// because the connection is given up (a stall, a lost peer) and what the socket still
    /// holds is resent elsewhere: a gateway that holds back its reads (a bridge at its
    /// window) then sees the end at once, not after reading those bytes (#40).
    case close(reset: Bool = false)
    /// Call `tick` at (or soon after) this time. Replaces any earlier request.
    case scheduleTimer(Timestamp)
    /// A node-apn event.
    case event(SessionEvent<Record>)
    /// A node-apn `errorCallback(code, notification)` call; the tag is nil where node-apn
    /// passed null.
    case errorCallback(ErrorCallbackCode, SessionTag<Record>?)
    /// The final outcome of one notification. Exactly one per pushed notification.
    case outcome(SessionTag<Record>, NotificationOutcome)
}

/// node-apn's connection events, plus the two that complete `flush` and `shutdown`.
package enum SessionEvent<Record: AnyObject> {
    /// A connection was established.
    case connected
    /// An established connection closed.
    case disconnected
    /// The connection was idle for `idleTimeout` and is being closed.
    case timeout
    /// A notification's bytes were handed to the socket (not a delivery confirmation).
    case transmitted(SessionTag<Record>)
    /// Everything queued has been written.
    case completed
    /// The gateway (or a local check) refused a notification; nil when the identifier was
    /// not found.
    case transmissionError(StatusCode, SessionTag<Record>?)
    /// An error response named a notification older than the cache holds, by this many.
    case cacheTooSmall(Int)
    /// An error response named a notification the grace window had already accepted:
    /// this many were reported accepted though the gateway discarded them (it included).
    case graceWindowTooShort(Int)
    /// The written notifications hold `limit` bytes for resending: nothing more is written
    /// until outcomes free room. Reported once per session.
    case cacheFull(limit: Int)
    /// A connection attempt failed or an established connection broke.
    indirect case socketError(APNError)
    /// A failed attempt was counted against the retry limit (after its `socketError`): the
    /// next attempt starts after `nextAttemptIn`; `nil`: none will (the `error` 514 follows).
    indirect case connectAttemptFailed(APNError, nextAttemptIn: Duration?)
    /// An unrecoverable error: credentials, or the connection retry limit.
    indirect case error(APNError)
    /// A requested flush ended; `confirmed` when the gateway answered its marker frame.
    case flushed(confirmed: Bool)
    /// A requested shutdown finished: everything pushed has its outcome, nothing is open.
    case shutdownComplete
}


/// The caller's handle for one pushed notification, handed back in every report about it:
/// a record of the caller's and which of its notifications this is. A connection's push
/// record holds every notification of one `push(_:to: [Device])`, so one record serves a
/// thousand entries, told apart by `index`.
///
/// Generic over the record's class, so the driver gets its own type back with no cast
/// (#43). The session, the pool and their actions carry the parameter; the driver in this
/// module uses them with one record type (``ConnectionLoop``: `PushRecord`), so the
/// optimizer specializes them there and the hot path costs what a plain reference did.
/// The `AnyObject` constraint keeps the layout a single reference even where code runs
/// unspecialized (a benchmark or a test in another module).
package struct SessionTag<Record: AnyObject> {
    /// The caller's record (a connection's `PushRecord`).
    package var record: Record
    /// Which of the record's notifications (0 for a record that holds one).
    package var index: UInt32

    /// The handle for notification `index` of `record`.
    package init(_ record: Record, index: UInt32 = 0) {
        self.record = record
        self.index = index
    }
}
