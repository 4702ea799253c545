import APNSupport
import Foundation
import Synchronization

/// Runs a ``FeedbackScheduleState`` under a lock: the public calls change it with
/// ``update(_:)``, and the polling thread asks it what to do next with ``nextStep()``, which
/// waits on a condition until the clock reaches the next visit (a ``ManualClock`` wakes it
/// on every advance) or until an update. No sleeping.
final class FeedbackSchedule: Sendable {
    private let state: Lock<FeedbackScheduleState>
    // NSCondition is thread-safe; it pairs waits with wake-ups and guards nothing itself.
    private let condition = NSCondition()
    let clock: ConnectionClock
    private let observer: Int?

    init(clock: ConnectionClock, interval: Duration?) {
        self.clock = clock
        self.state = Lock(FeedbackScheduleState(interval: interval))
        observer = clock.manual?.observe { [condition] in
            condition.lock()
            condition.broadcast()
            condition.unlock()
        }
    }

    deinit {
        if let observer { clock.manual?.removeObserver(observer) }
    }

    /// Whether the visit begun as `generation` has been cancelled since.
    func isCancelled(_ generation: Int) -> Bool {
        state.withLock { $0.isCancelled(generation) }
    }

    /// Changes the state under the lock (with the time now), then wakes the polling thread.
    /// `body` runs under the lock: it may enqueue work but must not call back in here.
    func update<Result>(_ body: (inout FeedbackScheduleState, Timestamp) -> Result) -> Result {
        let result = state.withLock { body(&$0, clock.now()) }
        condition.lock()
        condition.broadcast()
        condition.unlock()
        return result
    }

    /// For the polling thread: waits for the next visit and returns its generation, or
    /// `nil` when nothing is scheduled (the thread then ends).
    func nextStep() -> Int? {
        // The condition's lock is held from each look at the state until the wait, so an
        // update's wake-up, which takes that lock after changing the state, is never missed.
        condition.lock()
        defer { condition.unlock() }
        while true {
            let now = clock.now()
            switch state.withLock({ $0.next(now: now) }) {
            case .visit(let generation):
                return generation
            case .exit:
                return nil
            case .wait(let deadline):
                if clock.manual != nil {
                    condition.wait()
                } else {
                    let seconds = Double(deadline.nanoseconds &- now.nanoseconds) / 1e9
                    _ = condition.wait(until: Date(timeIntervalSinceNow: seconds))
                }
            }
        }
    }
}
