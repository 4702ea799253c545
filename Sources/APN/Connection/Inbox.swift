import APNSupport
import APNTLS
import Synchronization

/// What other threads ask of a connection's I/O thread, in the order they asked.
enum LoopCommand: Sendable {
    /// Send the record's notifications, in order: one command (and one record) for a whole
    /// `push(_:to: [Device])`, so the inbox and the I/O thread handle one value rather
    /// than one per notification.
    case push(PushRecord)
    /// Refused before queueing (bad token, no device, payload too large): report each of
    /// the record's notifications.
    case refuse(PushRecord, APNError)
    /// Report once everything pushed before has its outcome.
    /// `id`: the caller's, unique per connection, to cancel the wait with.
    case flush(confirm: Bool, id: ReplyID, reply: ReportReply)
    /// Finish, close every socket, then report.
    case shutdown(id: ReplyID, reply: ReportReply)
    /// The caller of flush or shutdown `id` stopped waiting (its Task was cancelled): the
    /// flush or shutdown goes on, and what its report would have held goes to the next.
    case cancelReply(ReplyID)
    /// A connection attempt for a socket slot finished.
    case connectResult(slot: Int, attempt: Int, ConnectResult)
    /// The ``Connection`` is gone: shut down if not yet, then end the thread.
    case release
    /// Answers once every command posted before it has been handled.
    case barrier(reply: @Sendable () -> Void)
    /// Answers once nothing written waits for the peer's acknowledgement.
    case acknowledgementBarrier(id: ReplyID, reply: @Sendable () -> Void)
    /// Listeners were added or removed (`transmitted` is produced only when someone listens).
    case listenersChanged
    /// The clock moved (``ManualClock``): check timers.
    case clockAdvanced
}

/// Where a flush's or shutdown's report goes.
struct ReportReply: Sendable {
    /// Asked on the I/O thread when the report is made: false when the caller stopped
    /// waiting — the report is then added to the next one, which cannot have been made yet.
    let claim: @Sendable () -> Bool
    /// Called on the callback queue with the report, once `claim` said yes.
    let deliver: @Sendable (DeliveryReport) -> Void

    /// A reply whose caller always waits (a completion handler).
    init(_ deliver: @escaping @Sendable (DeliveryReport) -> Void) {
        self.claim = { true }
        self.deliver = deliver
    }

    /// The reply of a Task awaiting `wait`, which its cancellation may answer first.
    init(_ wait: CancellableWait<DeliveryReport>) {
        self.claim = { wait.claim() }
        self.deliver = { wait.deliver($0) }
    }
}

/// A connected TLS socket, or why there is none.
enum ConnectResult: Sendable {
    /// Taken by the I/O thread, the only one to use it after the opening thread.
    case connected(Handoff<TLSConnection>)
    case failed(APNError)
}

/// A connection's inbox.
typealias Inbox = CommandInbox<LoopCommand>
