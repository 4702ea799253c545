import APNAdmin
import APNFeedbackStore
import Foundation
import Synchronization

/// What `apn feedback-service` has done so far, counted as it goes for `--admin`'s
/// `/metrics`: written by the service's one thread, read by the admin listener's, hence
/// atomics (each value on its own; a scrape may see a visit's tuples before its count).
final class FeedbackServiceMetrics: Sendable {
    /// Visits made, each a connection to the feedback service, successful or failed (a
    /// skipped visit, ``skippedVisits``, made none).
    private let visits = Atomic<Int>(0)
    /// Visits that failed (a `visit_failed` line).
    private let failures = Atomic<Int>(0)
    /// Visits not made because the store could not take a commit (a `visit_skipped` line).
    private let skippedVisits = Atomic<Int>(0)
    /// Tuples read from the feedback service, committed or not.
    private let tuplesRead = Atomic<Int>(0)
    /// Tuples committed to the store, whatever they did there.
    private let tuplesApplied = Atomic<Int>(0)
    /// Tokens those tuples deactivated.
    private let tokensDeactivated = Atomic<Int>(0)
    /// Whether this service holds the right to poll: for PostgreSQL the store's lease (false
    /// while it waits as a hot standby, or once the lease was lost); for SQLite the lock file,
    /// which it holds from start to exit (a second service exits at once instead of waiting),
    /// so always true there.
    private let leaseHeld: Atomic<Bool>
    /// When the last successful visit ended, UNIX seconds; 0 before one.
    private let lastSuccess = Atomic<Int>(0)

    /// Counts from zero; `leaseHeld` is the lease state before the service tries it.
    init(leaseHeld: Bool) {
        self.leaseHeld = Atomic(leaseHeld)
    }

    /// The lease was taken (true) or found lost (false).
    func setLeaseHeld(_ held: Bool) {
        leaseHeld.store(held, ordering: .relaxed)
    }

    /// A visit was skipped: the store could not take a commit.
    func skipped() {
        skippedVisits.add(1, ordering: .relaxed)
    }

    /// `count` tuples were read from the socket.
    func read(_ count: Int) {
        tuplesRead.add(count, ordering: .relaxed)
    }

    /// A batch was committed.
    func committed(_ applied: FeedbackApplication) {
        tuplesApplied.add(applied.read, ordering: .relaxed)
        tokensDeactivated.add(applied.deactivated, ordering: .relaxed)
    }

    /// A visit ended, failed or not; a successful one is the last success from now.
    func visited(failed: Bool) {
        visits.add(1, ordering: .relaxed)
        if failed {
            failures.add(1, ordering: .relaxed)
        } else {
            lastSuccess.store(Int(Date().timeIntervalSince1970.rounded(.down)), ordering: .relaxed)
        }
    }


    /// The Prometheus text of these counts, the client certificate's expiry and the
    /// process' own metrics.
    func render(process: ProcessMetrics, certificates: [CertificateExpiry]) -> String {
        var text = PrometheusText()
        func counter(_ name: String, _ help: String, _ value: borrowing Atomic<Int>) {
            text.single(name, .counter, help: help, Double(value.load(ordering: .relaxed)))
        }
        counter("apn_feedback_visits_total", "Visits to the feedback service, successful or failed.", visits)
        counter("apn_feedback_failures_total", "Visits that failed.", failures)
        counter("apn_feedback_skipped_visits_total", "Visits not made: the store could not take a commit.", skippedVisits)
        counter("apn_feedback_tuples_read_total", "Feedback tuples read from the feedback service.", tuplesRead)
        counter("apn_feedback_tuples_applied_total", "Feedback tuples committed to the token store.", tuplesApplied)
        counter("apn_feedback_tokens_deactivated_total", "Tokens the committed tuples deactivated.", tokensDeactivated)
        text.single(
            "apn_feedback_lease_held", .gauge,
            help: "1 while this service may poll the store (PostgreSQL: it holds the lease; SQLite: always), "
                + "0 while it waits as a hot standby.",
            leaseHeld.load(ordering: .relaxed) ? 1 : 0)
        text.single(
            "apn_feedback_last_success_timestamp_seconds", .gauge,
            help: "When the last successful visit ended, UNIX seconds; 0 before one.",
            Double(lastSuccess.load(ordering: .relaxed)))
        text.certificateExpiry(certificates)
        text.process(process)
        return text.text
    }
}
