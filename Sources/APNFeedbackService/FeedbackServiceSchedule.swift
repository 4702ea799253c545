/// What the feedback service does after each step: wait and go on, or end — the pure
/// decision of `FeedbackService.run()`, which only performs it. One instance per run.
///
/// The rules (each a row of `FeedbackServiceScheduleTests`):
/// - a visit that succeeded: failures forgotten; wait the interval, or end (`--once`);
/// - a visit skipped because the store cannot take a commit, or a visit that failed: back
///   off 1 s after the first failure, doubling, at most the interval — or end when polling
///   once, or when going on cannot help (unusable credentials);
/// - a commit that failed mid-visit: end (the recovery file holds the rest; the operator
///   replays it once the store is fixed — polling on would hand over tuples no store takes);
/// - the PostgreSQL lease lost before a visit: end (another service may poll now: two would
///   each take feedback the other never sees).
package struct FeedbackServiceSchedule: Sendable, Hashable {
    /// What to do next.
    package enum Next: Sendable, Hashable {
        /// Wait this long (or until stopped), then visit again.
        case wait(Duration)
        /// Stop visiting, for this reason.
        case end(Reason)
    }

    /// Why the run ends by itself.
    package enum Reason: Sendable, Hashable {
        /// Polling once, the visit succeeded.
        case finished
        /// Polling once, the store could not take a commit: no visit was made.
        case storeUnwritable
        /// The visit failed and polling once, or going on cannot help.
        case visitFailed
        /// A commit failed: tuples are in the recovery output, not in the store.
        case notCommitted
        /// The lease was lost.
        case leaseLost
    }

    /// Between visits; nil to visit once.
    package let interval: Duration?
    /// Failed or skipped visits since the last successful one.
    package private(set) var failures = 0

    /// A schedule visiting every `interval`, or once (nil).
    package init(interval: Duration?) {
        self.interval = interval
    }

    /// A visit succeeded.
    package mutating func visited() -> Next {
        failures = 0
        return interval.map(Next.wait) ?? .end(.finished)
    }

    /// No visit: the store's check failed.
    package mutating func skipped() -> Next {
        failures += 1
        return backoff().map(Next.wait) ?? .end(.storeUnwritable)
    }

    /// A visit failed; `final` when going on cannot help.
    package mutating func failed(final: Bool) -> Next {
        failures += 1
        guard !final, let wait = backoff() else { return .end(.visitFailed) }
        return .wait(wait)
    }

    /// A commit failed during a visit.
    package mutating func commitFailed() -> Next {
        failures += 1
        return .end(.notCommitted)
    }

    /// The lease was found lost before a visit.
    package func leaseLost() -> Next {
        .end(.leaseLost)
    }

    /// 1 s after the first failure, doubling, at most the interval; nil when polling once.
    private func backoff() -> Duration? {
        guard let interval else { return nil }
        return min(interval, .seconds(1 << min(failures - 1, 20)))
    }
}
