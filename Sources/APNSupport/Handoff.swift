import Dispatch

/// Carries a non-`Sendable` value from the thread that has it to the one thread that will
/// use it: a ``TLSConnection`` or ``TLSListener`` to the thread that will own it, a result
/// out of a Task to the thread waiting for it. The value is given at `init`, or later with
/// ``put(_:)``, and taken once with ``take()``, which waits for it.
///
/// `@unchecked Sendable` is sound because of how it is used: the value is written once (in
/// `init` or ``put(_:)``) before `ready` is signalled and read once by ``take()`` after the
/// wait, so the semaphore orders the write before the read; the giving thread never touches
/// the value again, so one thread uses it at any time.
package final class Handoff<Value>: @unchecked Sendable {
    private var value: Value?
    // Created at 0 and signalled, never created at 1: libdispatch traps when a semaphore
    // is freed below its initial count, which a taken handoff would be.
    private let ready = DispatchSemaphore(value: 0)

    /// A handoff holding `value` already: ``take()`` returns at once.
    package init(_ value: Value) {
        self.value = value
        ready.signal()
    }

    /// An empty handoff: ``take()`` waits for ``put(_:)``.
    package init() {}

    /// Gives the value; called once, on an empty handoff.
    package func put(_ value: Value) {
        self.value = value
        ready.signal()
    }

    /// Waits for the value and hands it over; called once, by the receiving thread.
    package func take() -> Value {
        ready.wait()
        return handOver()
    }

    /// Waits at most `timeout` for the value: the value, handed over, or `nil` (then the
    /// handoff is still to be taken, and can be waited on again).
    package func take(waitingAtMost timeout: Duration) -> Value? {
        guard ready.wait(timeout: .now() + .nanoseconds(timeout.wholeNanoseconds)) == .success else { return nil }
        return handOver()
    }

    private func handOver() -> Value {
        guard let value else { preconditionFailure("a Handoff was taken twice") }
        self.value = nil
        return value
    }
}
