import APNSupport
import Synchronization

/// A one-way gate tasks wait at until it opens: "every notification was handed over",
/// "a stop was asked for". A waiting task that is cancelled stops waiting.
final class Latch: Sendable {
    private struct State {
        var isOpen = false
        var nextID = 0
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    }

    private let state = Lock(State())

    /// Whether it has opened.
    var isOpen: Bool { state.withLock { $0.isOpen } }

    /// Opens it, for good: every waiter resumes; idempotent.
    func open() {
        let waiters = state.withLock { state in
            state.isOpen = true
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once it is open, or at once when the task is (or gets) cancelled.
    func wait() async {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                // Cancellation sets the flag before its handler runs: seen here, or the
                // handler finds the waiter.
                let now = state.withLock { state in
                    if state.isOpen || Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
        }
    }
}
