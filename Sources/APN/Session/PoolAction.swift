/// What the ``ConnectionPool`` asks its driver to do, or reports to the caller. Drained with
/// `ConnectionPool.nextAction()` after every input, and performed in order.
package enum PoolAction<Record: AnyObject> {
    /// Open a socket for `slot`; answer with `socketOpened` or `socketFailed`, quoting
    /// `attempt` (the pool ignores answers to attempts it gave up on).
    case connect(slot: Int, attempt: Int)
    /// The slot's session put bytes into its empty outbound buffer: write them (see
    /// `ConnectionPool.withOutboundBytes`) until it is empty, answering `bytesWritten`.
    case write(slot: Int)
    /// Close the slot's socket (close_notify, best effort, then close; with `reset`, a TCP
    /// reset instead: the connection was given up, see ``SessionAction/close(reset:)``).
    /// The pool has already counted it closed: no `socketClosed` answer.
    case close(slot: Int, reset: Bool = false)
    /// Call `tick(slot:now:)` at (or soon after) this time. Replaces the slot's earlier
    /// request.
    case scheduleTimer(slot: Int, Timestamp)
    /// While on, report the slot's socket's TCP acknowledgements (`acknowledged`) every few
    /// milliseconds of real time: they arrive in real time, whatever the clock.
    case watchAcknowledgements(slot: Int, Bool)
    /// A socket connected; `openSockets` are connected now.
    case connected(openSockets: Int)
    /// A socket closed; `openSockets` are connected now.
    case disconnected(openSockets: Int)
    /// A connection event (never `connected`, `disconnected`, `flushed` or
    /// `shutdownComplete`, which the pool consumes; `completed` is the pool's own).
    case event(SessionEvent<Record>)
    /// A node-apn `errorCallback(code, notification)` call; nil where node-apn passed null.
    case errorCallback(ErrorCallbackCode, SessionTag<Record>?)
    /// The final outcome of one notification: exactly one per notification pushed or refused.
    case outcome(SessionTag<Record>, NotificationOutcome)
    /// Answer the flush or shutdown `id` with this report.
    indirect case reply(ReplyID, PoolReport<Record>)
    /// Answer the acknowledgement barrier `id`.
    case wake(ReplyID)
    /// The shutdown finished: event streams end.
    case endEvents
    /// Shut down and released: nothing more will happen; the driver may end.
    case stop
}

/// The driver's name for a waiting flush, shutdown or barrier, handed back in its answer.
package typealias ReplyID = Int

/// What became of the notifications whose outcomes the pool reported since its previous
/// report: the driver turns it into a ``DeliveryReport``.
package struct PoolReport<Record: AnyObject> {
    /// Outcomes `accepted`.
    package var accepted = 0
    /// Of those, possibly delivered twice.
    package var possiblyDuplicated = 0
    /// Notifications queued to be written again.
    package var resent = 0
    /// Every outcome that is not `accepted`, in order.
    package var notAccepted: [(tag: SessionTag<Record>, outcome: NotificationOutcome)] = []
    /// For a confirmed flush: every socket's marker was answered.
    package var confirmed = false

    package init() {}

    /// Counts one outcome.
    mutating func record(_ tag: borrowing SessionTag<Record>, _ outcome: NotificationOutcome) {
        if case .accepted(let acceptance) = outcome {
            // The common case, kept cheap: a count, no list entry.
            accepted += 1
            if acceptance.possiblyDuplicated { possiblyDuplicated += 1 }
        } else {
            notAccepted.append((copy tag, outcome))
        }
    }
}
