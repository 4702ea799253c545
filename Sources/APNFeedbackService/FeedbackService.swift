public import APN
package import APNFeedbackStore
import APNSupport
import Foundation
import Synchronization

/// The feedback service as a library (`apn feedback-service` is this, with flags and JSON
/// lines): visits Apple's binary feedback service every interval and applies what it reads
/// to a ``TokenStore``, each batch committed in one transaction before more is read.
///
/// ```swift
/// var configuration = FeedbackService.Configuration(store: "tokens.sqlite", feedback: options)
/// configuration.events = { event in print(event) }
/// let service = try FeedbackService(configuration: configuration)
/// // on a thread of its own; service.stop() from any other
/// let ending = service.run()
/// ```
///
/// What it promises (every tuple the feedback service hands over is committed or in the
/// recovery output):
/// - **One poller a store.** Before the store is opened it takes the store's lock — SQLite:
///   `flock(2)` on `STORE.lock`, refused at once when another service holds it; PostgreSQL: the
///   store's lease, waited for as a hot standby — and checks the lease before each visit. Two
///   pollers would each take tuples the other never sees.
/// - **No visit to a store that cannot commit.** Before each visit the store must take a write
///   transaction and have ``Configuration/minimumFreeBytes`` of room; if not, no visit.
/// - **Backpressure.** ``Feedback/visit(batchSize:cancellation:_:)`` calls back on the
///   reading thread and reads nothing more until the batch is committed: when a tuple is
///   read, every tuple read before it is committed (or, after a failed commit, written out).
/// - **A failed commit loses nothing.** The visit is read to its end (what the service sent
///   is gone from it, and the rest sits in the socket's buffers) and every tuple from the
///   failed batch on is told (``Event/notCommitted(_:)``) and written to a recovery file beside
///   the store, made durable; then the run ends with ``Ending/notCommitted(count:recoveryFile:)``.
///
/// The schedule — wait the interval, back off 1 s doubling up to it, or end — is the pure
/// `FeedbackServiceSchedule`; this class performs it.
public final class FeedbackService: Sendable {
    /// What it was made with (the feedback options as first given; see ``useFeedback(_:)``).
    public let configuration: Configuration
    private let stopRequest: FeedbackServiceStop
    /// The poller for the next visit: ``useFeedback(_:)`` puts one with new options there.
    private let poller: Lock<Feedback>
    /// Opens the store once the lock is held (a test support decorator can wrap it).
    private let openStore: @Sendable (String) throws(StoreError) -> TokenStore

    /// A service; nothing is opened or visited until ``run()``.
    ///
    /// - Throws: ``APNError`` when the system has no descriptor left for the stop's wake-up.
    public convenience init(configuration: Configuration) throws(APNError) {
        try self.init(configuration: configuration) { location throws(StoreError) in try TokenStore(location: location) }
    }

    /// A service whose store `openStore` opens (tests inject faults through it).
    package init(
        configuration: Configuration, openStore: @escaping @Sendable (String) throws(StoreError) -> TokenStore
    ) throws(APNError) {
        var configuration = configuration
        // The service schedules its own visits (Feedback.visit): the poller must not.
        configuration.feedback.interval = nil
        self.configuration = configuration
        self.openStore = openStore
        stopRequest = try FeedbackServiceStop()
        poller = Lock(Feedback(options: configuration.feedback))
    }

    /// Ends ``run()`` from any thread, at once: a visit under way stops reading, commits what
    /// it read and is told (``Event/visited(_:stopped:)``); a wait (between visits, or a
    /// standby's) ends. Idempotent.
    public func stop() {
        stopRequest.request()
    }

    /// Whether ``stop()`` was called.
    public var isStopping: Bool { stopRequest.isRequested }

    /// Visits with `options` from the next visit on (one under way finishes with the old):
    /// new credentials after a reload. Check them first (``Feedback/checkCredentials(_:)``).
    public func useFeedback(_ options: Feedback.Options) {
        var options = options
        options.interval = nil
        poller.withLock { $0 = Feedback(options: options) }
    }

    /// Takes the store's lock, opens the store and visits until stopped (or once); blocks
    /// the calling thread. Call once.
    public func run() -> Ending {
        let events = configuration.events
        let lock: FeedbackPollLock
        do throws(FeedbackPollLock.Held) {
            guard let taken = try FeedbackPollLock.take(store: configuration.store, stop: stopRequest, events: events)
            else { return .stopped }
            if !TokenStore.isPostgreSQL(configuration.store) {
                events(.leaseTaken(store: TokenStore.redacted(configuration.store), afterWaiting: false))
            }
            lock = taken
        } catch {
            return .lockHeld(error.description)
        }
        return withExtendedLifetime(lock) {
            let store: TokenStore
            do throws(StoreError) {
                store = try openStore(configuration.store)
            } catch {
                return .storeUnavailable(error.description)
            }
            var run = FeedbackServiceRun(service: self, store: store, lock: lock)
            return run.loop()
        }
    }

    /// The poller for the next visit.
    var currentPoller: Feedback { poller.withLock { $0 } }
    /// The stop, for the run.
    var stopSignal: FeedbackServiceStop { stopRequest }
}
