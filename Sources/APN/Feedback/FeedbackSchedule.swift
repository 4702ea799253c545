import Foundation
import APNWire // PThreadMutex in TSan builds
import Synchronization

/// The poller's interval and cancellation: waits on a condition until the clock reaches a
/// deadline (a ``ManualClock`` wakes it on every advance) or until cancelled. No sleeping.
final class FeedbackSchedule: Sendable {
    private struct State {
        var running = false
        var cancelled = false
    }

    private let state = Mutex(State())
    // NSCondition is thread-safe; it pairs waits with wake-ups and guards nothing itself.
    private let condition = NSCondition()
    private let clock: ConnectionClock
    private let observer: Int?

    init(clock: ConnectionClock) {
        self.clock = clock
        observer = clock.manual?.observe { [condition] in
            condition.lock()
            condition.broadcast()
            condition.unlock()
        }
    }

    deinit {
        if let observer { clock.manual?.removeObserver(observer) }
    }

    var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Marks polling as started; `false` when it already runs (or was cancelled).
    func begin() -> Bool {
        state.withLock { state in
            guard !state.running, !state.cancelled else { return false }
            state.running = true
            return true
        }
    }

    /// The polling thread is done; returns whether it was cancelled.
    func end() -> Bool {
        state.withLock { state in
            state.running = false
            return state.cancelled
        }
    }

    /// Cancels for good; returns whether polling was running then (its thread will end).
    @discardableResult
    func cancel() -> Bool {
        let running = state.withLock { state in
            state.cancelled = true
            return state.running
        }
        condition.lock()
        condition.broadcast()
        condition.unlock()
        return running
    }

    /// Waits until the clock reaches `deadline`; `false` when cancelled first.
    func wait(until deadline: Timestamp) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if isCancelled { return false }
            let now = clock.now()
            if now >= deadline { return true }
            if clock.manual != nil {
                condition.wait()
            } else {
                let seconds = Double(deadline.nanoseconds &- now.nanoseconds) / 1e9
                _ = condition.wait(until: Date(timeIntervalSinceNow: seconds))
            }
        }
    }
}
