import APN
import APNSupport
import APNFeedbackService
import APNFeedbackStore
import Foundation

/// What `apn feedback-service` prints for each event of its ``FeedbackService``: one JSON line
/// per visit on standard output (`visit`, `visit_skipped`, `visit_failed`, with
/// `--log-batches` `batch`), what an operator must know on standard error (the standby, the
/// store's check, the recovery output), and the counts `--admin`'s `/metrics` shows.
struct FeedbackServiceOutput: Sendable {
    let settings: FeedbackServiceCommand.Settings
    let metrics: FeedbackServiceMetrics

    /// Prints and counts `event`.
    func handle(_ event: FeedbackService.Event) {
        let program = "apn feedback-service"
        switch event {
        case .waitingForLease(let store, let retry):
            LineWriter.stderr(
                "\(program): another apn feedback-service holds the lease on \(store); waiting as a hot "
                    + "standby (trying every \(retry.components.seconds) s)")
        case .leaseUnreachable(let error):
            LineWriter.stderr("\(program): cannot try the lease (\(error)); trying again")
        case .leaseTaken(let store, let afterWaiting):
            metrics.setLeaseHeld(true)
            if afterWaiting { LineWriter.stderr("\(program): took the lease on \(store); polling") }
        case .leaseLost(let lost):
            metrics.setLeaseHeld(false)
            // Another service may be polling now: two would each take feedback the other never sees.
            LineWriter.stderr("\(program): \(lost); stopping (another service may poll now)")
        case .storeUnwritable(let error, let retrying):
            let then = retrying ? "until it can; checking again before each visit." : "--once: exiting."
            LineWriter.stderr(
                "\(program): the token store cannot take a write: \(error). Not connecting to the "
                    + "feedback service (it serves each tuple once, and they could not be kept) \(then)")
        case .storeWritableAgain:
            LineWriter.stderr("\(program): the token store can be written again; visiting the feedback service.")
        case .visitSkipped(let report, let error, let retryIn):
            metrics.skipped()
            var fields = Self.counts(report, event: "visit_skipped")
            fields.append(("error", .string(error.description)))
            if let retryIn { fields.append(("retry_in", .integer(Int(retryIn.components.seconds)))) }
            LineWriter.stdout(.object(fields))
        case .tuplesRead(let count):
            metrics.read(count)
        case .batchCommitted(let batch, let visitTotal):
            metrics.committed(batch)
            if settings.logsBatches {
                LineWriter.stdout(.object([
                    ("event", .string("batch")), ("read", .integer(batch.read)), ("committed", .integer(visitTotal)),
                ]))
            }
        case .commitFailed(let error, let file, let fileFailure):
            FeedbackRecovery.sayBegun(FeedbackRecovery.Wording(), error: error, file: file, fileFailure: fileFailure)
        case .notCommitted(let entries):
            FeedbackRecovery.writeToStandardError(entries)
        case .recoveryFileAbandoned(let path, let reason):
            FeedbackRecovery.sayAbandoned(FeedbackRecovery.Wording(), path: path, reason: reason)
        case .visited(let report, let stopped):
            metrics.visited(failed: false)
            var fields = Self.counts(report, event: "visit")
            fields.append(("stopped", .bool(stopped)))
            LineWriter.stdout(.object(fields))
        case .visitFailed(let report, let error, let retryIn):
            metrics.visited(failed: true)
            var fields = Self.counts(report, event: "visit_failed")
            fields.append(("error", .string(error)))
            if let retryIn { fields.append(("retry_in", .integer(Int(retryIn.components.seconds)))) }
            LineWriter.stdout(.object(fields))
        case .visitNotCommitted(let report, let error, let count, let file, let fileFailure):
            metrics.visited(failed: true)
            var fields = Self.counts(report, event: "visit_failed")
            fields.append(("error", .string(error)))
            fields.append(("not_committed", .integer(count)))
            fields.append(("recovery_file", file.map { .string($0) } ?? .null))
            LineWriter.stdout(.object(fields))
            FeedbackRecovery.sayWhere(
                FeedbackRecovery.Wording(), count: count, file: file, fileFailure: fileFailure, store: settings.store)
        }
    }

    /// The exit status for how the run ended, saying on standard error what no event said.
    static func exitStatus(_ ending: FeedbackService.Ending) -> Int32 {
        switch ending {
        case .stopped, .finished:
            return 0
        case .lockHeld(let message), .storeUnavailable(let message):
            LineWriter.stderr("apn feedback-service: \(message)")
            return 1
        case .leaseLost, .storeUnwritable, .visitFailed, .notCommitted:
            return 1
        }
    }

    /// The fields every visit line starts with.
    private static func counts(_ report: FeedbackService.VisitReport, event: String) -> [(String, JSONValue)] {
        let milliseconds = report.duration.wholeNanoseconds / 1_000_000
        let applied = report.applied
        return [
            ("event", .string(event)),
            ("time", .integer(Int(report.time.timeIntervalSince1970.rounded(.down)))),
            ("date", .string(FeedbackCommand.isoDate(report.time))),
            ("read", .integer(applied.read)), ("deactivated", .integer(applied.deactivated)),
            ("kept", .integer(applied.kept)), ("unknown", .integer(applied.unknown)),
            ("duplicates", .integer(applied.duplicates)),
            ("seconds", .string(String(format: "%.3f", Double(milliseconds) / 1000))),
        ]
    }
}
