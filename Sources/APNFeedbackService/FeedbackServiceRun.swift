import APN
import APNFeedbackStore
import Foundation

/// One ``FeedbackService/run()`` once the lock is held and the store open: the I/O driver of
/// `FeedbackServiceSchedule` — checks the lease and the store, visits, tells what happened,
/// and performs the schedule's decision (wait, or end).
struct FeedbackServiceRun {
    private let configuration: FeedbackService.Configuration
    private let events: @Sendable (FeedbackService.Event) -> Void
    private let service: FeedbackService
    private let store: TokenStore
    private let lock: FeedbackPollLock
    private var check: FeedbackStoreCheck
    private var schedule: FeedbackServiceSchedule

    init(service: FeedbackService, store: TokenStore, lock: FeedbackPollLock) {
        self.service = service
        configuration = service.configuration
        events = configuration.events
        self.store = store
        self.lock = lock
        check = FeedbackStoreCheck(store: store, freeBytes: configuration.freeBytesChecked)
        schedule = FeedbackServiceSchedule(interval: configuration.interval)
    }

    /// Visits until the schedule ends the run or a stop is asked for.
    mutating func loop() -> FeedbackService.Ending {
        while true {
            let (next, ending) = step()
            switch next {
            case .wait(let duration):
                if service.stopSignal.wait(duration) { return .stopped }
            case .end:
                return ending ?? .stopped
            }
        }
    }

    /// One visit (or the check that skips it): the schedule's decision, and the ending to
    /// return should it end the run.
    private mutating func step() -> (FeedbackServiceSchedule.Next, FeedbackService.Ending?) {
        let started = ContinuousClock.now
        let time = Date()
        if let lost = lock.lost() {
            events(.leaseLost(lost))
            return (schedule.leaseLost(), .leaseLost(lost))
        }
        if let error = check.run(retrying: configuration.interval != nil, events: events) {
            let next = schedule.skipped()
            events(.visitSkipped(report(FeedbackApplication(), time, started), error: error, retryIn: next.wait))
            return (next, .storeUnwritable(error.description))
        }
        var visit = FeedbackServiceVisit(configuration: configuration, store: store, time: time)
        let failure = visit.run(poller: service.currentPoller, cancellation: service.stopSignal.cancellation)
        let report = report(visit.applied, time, started)
        if let recovery = visit.recovery {
            _ = recovery.finish()
            let error = failure?.message ?? "the store failed"
            events(.visitNotCommitted(
                report, error: error, notCommitted: visit.notCommitted, recoveryFile: recovery.file,
                fileFailure: recovery.failure))
            return (schedule.commitFailed(), .notCommitted(count: visit.notCommitted, recoveryFile: recovery.file))
        }
        if let failure {
            let next = schedule.failed(final: failure.isFinal)
            events(.visitFailed(report, error: failure.message, retryIn: next.wait))
            return (next, .visitFailed(failure.message))
        }
        events(.visited(report, stopped: visit.stopped))
        if visit.stopped || service.isStopping { return (.end(.finished), .stopped) }
        return (schedule.visited(), .finished)
    }

    private func report(_ applied: FeedbackApplication, _ time: Date, _ started: ContinuousClock.Instant)
        -> FeedbackService.VisitReport
    {
        FeedbackService.VisitReport(time: time, duration: ContinuousClock.now - started, applied: applied)
    }
}

extension FeedbackServiceSchedule.Next {
    /// The wait, when the decision is to wait.
    var wait: Duration? {
        if case .wait(let duration) = self { return duration }
        return nil
    }
}
