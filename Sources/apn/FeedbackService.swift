import APNSupport
import APN
import APNFeedbackStore
import Foundation

/// The loop of `apn feedback-service`: a visit to the feedback service, each batch applied
/// to the store in one transaction before more is read, one JSON line per visit, then a wait
/// of the interval (or of the backoff after a failed visit).
///
/// Why `Feedback.visit` and not the `feedback: .batch { … }` option of a polling `Feedback`:
/// the poller delivers batches on its callback queue with `async` and keeps reading the
/// socket meanwhile. A slow commit would let read-but-unstored batches pile up in the queue,
/// all lost if the process is killed, and the service would see no backpressure. `visit`
/// calls us on the reading thread and reads nothing more until we return, so when a tuple is
/// read from the socket every tuple read before it is already committed (or, after a failed
/// commit, written out). The interval and the backoff are therefore scheduled here, on the
/// same thread, with the poller's own interval off.
///
/// Before each visit the store must prove it can take a commit (``StoreCheck``); if it cannot,
/// there is no visit. If a commit fails anyway (the disk filled up meanwhile), the rest of the
/// visit is still read — what the service already sent is gone from it — and every tuple from
/// the failed batch on goes to ``FeedbackRecovery``; then the service exits 1, naming the file
/// and the command that applies it. Every tuple read is committed or in that output.
final class FeedbackService {
    private let settings: FeedbackServiceCommand.Settings
    private let store: TokenStore
    private let stop: StopRequest
    /// Checked before each visit: a lost PostgreSQL lease ends the service.
    private let lock: PollLock
    /// The poller for the next visit: a reload (SIGHUP) puts one with new credentials there.
    private let poller: FeedbackServiceReload
    private var check: StoreCheck
    private let recovery: FeedbackRecovery
    /// What `--admin`'s `/metrics` shows, counted as the visits go.
    private let metrics: FeedbackServiceMetrics

    init(
        settings: FeedbackServiceCommand.Settings, store: TokenStore, lock: PollLock, stop: StopRequest,
        metrics: FeedbackServiceMetrics, poller: FeedbackServiceReload
    ) {
        self.settings = settings
        self.metrics = metrics
        self.store = store
        self.lock = lock
        self.stop = stop
        self.poller = poller
        self.check = StoreCheck(store: store, freeBytes: settings.minimumFreeBytes)
        self.recovery = FeedbackRecovery(store: settings.store)
    }

    /// Visits until stopped (or once); returns the exit status.
    func run() -> Int32 {
        var failures = 0
        while true {
            let started = ContinuousClock.now
            let time = Date()
            if let lost = lock.lost() {
                metrics.setLeaseHeld(false)
                // Another service may be polling now: two would each take feedback the other never sees.
                LineWriter.stderr("apn feedback-service: \(lost); stopping (another service may poll now)")
                return 1
            }
            if let error = check.run(retrying: settings.interval != nil) {
                metrics.skipped()
                failures += 1
                let retry = backoff(after: failures)
                var fields = Self.counts(FeedbackApplication(), time: time, seconds: ContinuousClock.now - started)
                fields.insert(("event", .string("visit_skipped")), at: 0)
                fields.append(("error", .string(error.description)))
                if let retry { fields.append(("retry_in", .integer(Int(retry.components.seconds)))) }
                LineWriter.stdout(.object(fields))
                guard let retry else { return 1 }
                if stop.wait(retry) { return 0 }
                continue
            }
            var visit = VisitTally()
            let failure = visitOnce(&visit, at: time)
            metrics.visited(failed: recovery.isActive || failure != nil)
            var fields = Self.counts(visit.applied, time: time, seconds: (ContinuousClock.now - started))
            if recovery.isActive {
                recovery.finish()
                fields.insert(("event", .string("visit_failed")), at: 0)
                fields.append(("error", .string(failure?.message ?? "the store failed")))
                fields.append(("not_committed", .integer(recovery.count)))
                fields.append(("recovery_file", recovery.file.map { .string($0) } ?? .null))
                LineWriter.stdout(.object(fields))
                recovery.announce()
                return 1
            }
            if let failure {
                failures += 1
                let retry = backoff(after: failures)
                fields.insert(("event", .string("visit_failed")), at: 0)
                fields.append(("error", .string(failure.message)))
                if let retry, !failure.isFinal { fields.append(("retry_in", .integer(Int(retry.components.seconds)))) }
                LineWriter.stdout(.object(fields))
                if failure.isFinal || settings.interval == nil { return 1 }
                if stop.wait(retry ?? .seconds(1)) { return 0 }
            } else {
                failures = 0
                fields.insert(("event", .string("visit")), at: 0)
                fields.append(("stopped", .bool(visit.stopped)))
                LineWriter.stdout(.object(fields))
                guard let interval = settings.interval, !stop.wait(interval) else { return 0 }
            }
        }
    }

    /// What one visit did.
    private struct VisitTally {
        var applied = FeedbackApplication()
        var batches = 0
        var stopped = false
    }

    /// Why a visit failed; `isFinal` when going on cannot help (unusable credentials).
    private struct Failure {
        var message: String
        var isFinal = false
    }

    /// One visit. After a failed commit the visit goes on to its end, every batch going to
    /// the recovery output: stopping would not leave the rest with the service, which
    /// forgets what it sent, but in the socket's buffers, lost when it is closed.
    private func visitOnce(_ visit: inout VisitTally, at time: Date) -> Failure? {
        var storeError: StoreError?
        do throws(APNError) {
            let feedback = poller.current
            let end = try feedback.visit(batchSize: settings.batchSize, cancellation: stop.cancellation) {
                entries in
                // Runs on this thread; the socket is not read again until it returns.
                metrics.read(entries.count)
                if !recovery.isActive, let error = commit(entries, into: &visit) {
                    storeError = error
                    recovery.begin(after: error, at: time)
                }
                if recovery.isActive { recovery.keep(entries) }
                return true
            }
            visit.stopped = end == .stopped
        } catch {
            if let storeError { return Failure(message: "\(storeError); then \(error.message)") }
            return Failure(message: error.message, isFinal: error.code == .credentials)
        }
        return storeError.map { Failure(message: "\($0)") }
    }

    /// Applies one batch in one transaction; prints its line with `--log-batches` once it
    /// is committed.
    private func commit(_ entries: [Feedback.Entry], into visit: inout VisitTally) -> StoreError? {
        do throws(StoreError) {
            let applied = try store.apply(entries, readAt: Int64(Date().timeIntervalSince1970.rounded(.down)))
            visit.applied.read += applied.read
            visit.applied.deactivated += applied.deactivated
            visit.applied.kept += applied.kept
            visit.applied.unknown += applied.unknown
            visit.applied.duplicates += applied.duplicates
            metrics.committed(applied)
            visit.batches += 1
            if settings.logsBatches {
                LineWriter.stdout(.object([
                    ("event", .string("batch")), ("read", .integer(applied.read)),
                    ("committed", .integer(visit.applied.read)),
                ]))
            }
            return nil
        } catch {
            return error
        }
    }

    /// 1 s after the first failure, doubling, at most the interval; nil with `--once`.
    private func backoff(after failures: Int) -> Duration? {
        guard let interval = settings.interval else { return nil }
        return min(interval, .seconds(1 << min(failures - 1, 20)))
    }

    private static func counts(_ applied: FeedbackApplication, time: Date, seconds: Duration) -> [(String, JSONValue)] {
        let milliseconds = seconds.wholeNanoseconds / 1_000_000
        return [
            ("time", .integer(Int(time.timeIntervalSince1970.rounded(.down)))),
            ("date", .string(FeedbackCommand.isoDate(time))),
            ("read", .integer(applied.read)), ("deactivated", .integer(applied.deactivated)),
            ("kept", .integer(applied.kept)), ("unknown", .integer(applied.unknown)),
            ("duplicates", .integer(applied.duplicates)),
            ("seconds", .string(String(format: "%.3f", Double(milliseconds) / 1000))),
        ]
    }
}
