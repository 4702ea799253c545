import APN
import APNSupport
import Dispatch

/// A stop asked for once (``FeedbackService/stop()``, from a signal's thread) and seen from
/// any thread: it cancels the visit in progress at once (``cancellation``) and wakes a wait
/// between visits, or a standby's, at once.
final class FeedbackServiceStop: Sendable {
    /// Cancelled by ``request()``; given to every visit.
    let cancellation: Feedback.Cancellation
    private let wake = DispatchSemaphore(value: 0)

    /// - Throws: when the system has no descriptor left for the cancellation's wake-up.
    init() throws(APNError) {
        cancellation = try Feedback.Cancellation()
    }

    /// Whether a stop was asked for.
    var isRequested: Bool {
        cancellation.isCancelled
    }

    /// Asks for the stop; idempotent (only the first call signals the wait).
    func request() {
        guard !isRequested else { return }
        cancellation.cancel()
        wake.signal()
    }

    /// Waits up to `duration` or until a stop is asked for; returns whether it was.
    func wait(_ duration: Duration) -> Bool {
        if isRequested { return true }
        _ = wake.wait(timeout: .now() + .nanoseconds(duration.wholeNanoseconds))
        return isRequested
    }
}
