import APNTLS
import Dispatch
import Synchronization

/// A stop asked for once (by a signal) and seen from any thread: polled by a visit in
/// progress, and waking a wait between visits at once.
final class StopRequest: Sendable {
    private let requested = Lock(false)
    private let wake = DispatchSemaphore(value: 0)

    /// Whether a stop was asked for.
    var isRequested: Bool {
        requested.withLock { $0 }
    }

    /// Asks for the stop; idempotent.
    func request() {
        let first = requested.withLock { requested in
            defer { requested = true }
            return !requested
        }
        if first { wake.signal() }
    }

    /// Waits up to `duration` or until a stop is asked for; returns whether it was.
    func wait(_ duration: Duration) -> Bool {
        if isRequested { return true }
        let (seconds, attoseconds) = duration.components
        let nanoseconds = Int(min(seconds, Int64(Int.max / 1_000_000_000 - 1))) * 1_000_000_000
            + Int(attoseconds / 1_000_000_000)
        _ = wake.wait(timeout: .now() + .nanoseconds(nanoseconds))
        return isRequested
    }
}
