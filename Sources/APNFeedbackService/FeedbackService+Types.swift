public import APN
public import APNFeedbackStore
public import Foundation

extension FeedbackService {
    /// What a service polls, where it commits, and how often.
    public struct Configuration: Sendable {
        /// The token store: a SQLite file (created when missing) or a `postgresql://` URL.
        public var store: String
        /// The feedback service and the credentials to visit it with. Its
        /// ``Feedback/Options/interval`` is not used: the service schedules its own visits
        /// (each batch is committed before the socket is read again).
        public var feedback: Feedback.Options
        /// Between visits; nil to visit once. Default: one hour.
        public var interval: Duration? = .seconds(3600)
        /// Tuples committed per transaction at most; a batch also ends with each read from the
        /// socket. Default 1,000.
        public var batchSize = 1000
        /// Room the store's disk must have before each visit
        /// (``TokenStore/checkWritable(freeBytes:)``); nil (the default): 8 KiB per
        /// ``batchSize`` tuple, from 1 MiB to 64 MiB (``defaultMinimumFreeBytes(batchSize:)``),
        /// so a larger batch asks for more room without being told.
        public var minimumFreeBytes: Int?
        /// Told of everything the service does, on the thread that runs it; quick, it holds
        /// the visit (and the socket) while it runs. Default: nothing.
        public var events: @Sendable (Event) -> Void = { _ in }

        /// A service that polls `feedback` every hour into `store`.
        public init(store: String, feedback: Feedback.Options) {
            self.store = store
            self.feedback = feedback
        }

        /// The room checked before each visit: ``minimumFreeBytes``, or the default for
        /// ``batchSize``.
        var freeBytesChecked: Int { minimumFreeBytes ?? Self.defaultMinimumFreeBytes(batchSize: batchSize) }

        /// The default room for `batchSize`: a commit's WAL frames are whole 4 KiB pages, and a
        /// tuple can touch two (its feedback row and its token), so 8 KiB a tuple is a batch of
        /// scattered tokens; the floor covers a checkpoint growing the file, the cap keeps a
        /// huge batch's check cheap.
        public static func defaultMinimumFreeBytes(batchSize: Int) -> Int {
            min(max(batchSize * 8192, 1 << 20), 64 << 20)
        }
    }

    /// One visit, or one that was not made: when it started, how long it took, what its
    /// committed batches did to the store.
    public struct VisitReport: Sendable {
        /// When the visit (or the check that skipped it) started.
        public var time: Date
        /// How long it took.
        public var duration: Duration
        /// What the committed batches did, summed.
        public var applied: FeedbackApplication
    }

    /// What the service did, in order, on the thread running it.
    public enum Event: Sendable {
        /// PostgreSQL: another service holds the store's lease; this one waits as a hot
        /// standby, trying every `retry`. Told once.
        case waitingForLease(store: String, retry: Duration)
        /// PostgreSQL: the lease could not be tried (the server restarting); the standby
        /// goes on trying. Told once per different failure.
        case leaseUnreachable(StoreError)
        /// The right to poll was taken: the PostgreSQL lease (after waiting as a standby or
        /// at once) or, for SQLite, the lock beside the store (never after waiting).
        case leaseTaken(store: String, afterWaiting: Bool)
        /// The PostgreSQL lease was found lost before a visit; the run ends.
        case leaseLost(String)
        /// The store cannot take a commit: no visit until it can (`retrying`), or the run
        /// ends (polling once). Told when the check starts failing.
        case storeUnwritable(StoreError, retrying: Bool)
        /// The store takes commits again.
        case storeWritableAgain
        /// No visit: the store's check failed; the next try in `retryIn` (nil: the run ends).
        case visitSkipped(VisitReport, error: StoreError, retryIn: Duration?)
        /// Tuples read from the socket (before they are committed).
        case tuplesRead(Int)
        /// A batch committed; `visitTotal` tuples committed so far this visit.
        case batchCommitted(FeedbackApplication, visitTotal: Int)
        /// A commit failed: every tuple from that batch on goes to the recovery output, the
        /// file at `recoveryFile` (nil when it could not be created: `fileFailure`).
        case commitFailed(StoreError, recoveryFile: String?, fileFailure: String?)
        /// Tuples that are not in the store, told before they are written to the recovery
        /// file (which may fail on a full disk): a copy elsewhere — `apn` writes them to
        /// standard error as the file's JSON lines.
        case notCommitted([Feedback.Entry])
        /// The recovery file could not be written and was removed: the copies told by
        /// ``notCommitted(_:)`` are the only ones.
        case recoveryFileAbandoned(path: String, reason: String)
        /// A visit succeeded; `stopped` when a stop ended it (what was read is committed).
        case visited(VisitReport, stopped: Bool)
        /// A visit failed; what it read before is committed. The next in `retryIn` (nil: the
        /// run ends).
        case visitFailed(VisitReport, error: String, retryIn: Duration?)
        /// A visit during which a commit failed, read to its end: `notCommitted` tuples are
        /// in `recoveryFile` (durable now) and nowhere else; nil with `fileFailure` when the
        /// file could not be written. The run ends.
        case visitNotCommitted(
            VisitReport, error: String, notCommitted: Int, recoveryFile: String?, fileFailure: String?)
    }

    /// Why ``run()`` returned.
    public enum Ending: Sendable, Equatable {
        /// ``stop()`` was called; what the visit under way read is committed.
        case stopped
        /// Polling once: the visit succeeded.
        case finished
        /// Another service polls this store (SQLite), or the PostgreSQL lease could not be
        /// tried at the start; nothing was visited.
        case lockHeld(String)
        /// The store could not be opened.
        case storeUnavailable(String)
        /// The PostgreSQL lease was lost: another service may poll now.
        case leaseLost(String)
        /// Polling once, the store could not take a commit: no visit was made.
        case storeUnwritable(String)
        /// The visit failed (polling once), or the credentials are unusable.
        case visitFailed(String)
        /// A commit failed: `count` tuples are in the recovery file (nil when it could not
        /// be written), not in the store. Apply them once the store can be written
        /// (`apn tokens import FILE --store STORE`).
        case notCommitted(count: Int, recoveryFile: String?)

        /// Whether the service did what it was asked (``stopped`` or ``finished``).
        public var isSuccess: Bool { self == .stopped || self == .finished }
    }
}
