import APN
import APNFeedbackStore
import Foundation

/// One visit to the feedback service: each batch committed in one transaction on the
/// reading thread (the socket is not read again until it returns); after a failed commit the
/// visit goes on to its end, every batch going to the recovery output — stopping would not
/// leave the rest with the service, which forgets what it sent, but in the socket's buffers,
/// lost when it is closed.
struct FeedbackServiceVisit {
    /// Why a visit failed; `isFinal` when going on cannot help (unusable credentials).
    struct Failure {
        var message: String
        var isFinal = false
    }

    private let configuration: FeedbackService.Configuration
    private let store: TokenStore
    /// When the visit started: the recovery file's stamp.
    private let time: Date
    /// What the committed batches did.
    private(set) var applied = FeedbackApplication()
    /// Whether a stop ended the visit.
    private(set) var stopped = false
    /// The recovery file, from the failed commit on.
    private(set) var recovery: FeedbackRecoveryFile?
    /// Tuples in the recovery output.
    private(set) var notCommitted = 0

    init(configuration: FeedbackService.Configuration, store: TokenStore, time: Date) {
        self.configuration = configuration
        self.store = store
        self.time = time
    }

    /// Visits with `poller`; nil when the visit succeeded (a failed commit is told by
    /// ``recovery``, with the failure that followed, if any).
    mutating func run(poller: Feedback, cancellation: Feedback.Cancellation) -> Failure? {
        var storeError: StoreError?
        do throws(APNError) {
            let end = try poller.visit(batchSize: configuration.batchSize, cancellation: cancellation) { entries in
                // Runs on this thread; the socket is not read again until it returns.
                configuration.events(.tuplesRead(entries.count))
                if recovery == nil, let error = commit(entries) {
                    storeError = error
                    begin(after: error)
                }
                if recovery != nil { keep(entries) }
                return true
            }
            stopped = end == .stopped
        } catch {
            if let storeError { return Failure(message: "\(storeError); then \(error.message)") }
            return Failure(message: error.message, isFinal: error.code == .credentials)
        }
        return storeError.map { Failure(message: "\($0)") }
    }

    /// Applies one batch in one transaction.
    private mutating func commit(_ entries: [Feedback.Entry]) -> StoreError? {
        do throws(StoreError) {
            let batch = try store.apply(entries, readAt: Int64(Date().timeIntervalSince1970.rounded(.down)))
            applied.read += batch.read
            applied.deactivated += batch.deactivated
            applied.kept += batch.kept
            applied.unknown += batch.unknown
            applied.duplicates += batch.duplicates
            configuration.events(.batchCommitted(batch, visitTotal: applied.read))
            return nil
        } catch {
            return error
        }
    }

    /// From the failed commit on, every tuple goes to the recovery output.
    private mutating func begin(after error: StoreError) {
        let file = FeedbackRecoveryFile(store: configuration.store, unixTime: Int(time.timeIntervalSince1970.rounded(.down)))
        recovery = file
        configuration.events(.commitFailed(error, recoveryFile: file.path, fileFailure: file.failure))
    }

    /// Tells `entries` (the copy that comes first: the file may fail on a full disk), then
    /// appends them to the file.
    private mutating func keep(_ entries: [Feedback.Entry]) {
        guard !entries.isEmpty, let recovery else { return }
        configuration.events(.notCommitted(entries))
        notCommitted += entries.count
        if let reason = recovery.append(FeedbackRecoveryFile.lines(for: entries)) {
            configuration.events(.recoveryFileAbandoned(path: recovery.path ?? "?", reason: reason))
        }
    }
}
