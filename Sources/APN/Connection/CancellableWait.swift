import APNWire // PThreadMutex in TSan builds
import Synchronization

/// One answer awaited by a Task that may be cancelled: the first of the answer and the
/// cancellation's value resumes the Task; the other is refused (``resume(_:)`` returns
/// false), so its sender can put it somewhere else (a report carried to the next one).
final class CancellableWait<Value: Sendable>: Sendable {
    private enum State {
        case empty
        case waiting(CheckedContinuation<Value, Never>)
        /// Answered before the Task started waiting.
        case answered(Value)
        case done
    }

    private let state = Mutex(State.empty)

    /// Waits for the first value given to ``resume(_:)``, after calling `start` (which
    /// arranges for the answer), until then or until `value` when the Task is cancelled.
    func wait(cancelled value: @escaping @Sendable () -> Value, onCancel: @escaping @Sendable () -> Void = {},
              _ start: () -> Void) async -> Value {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let early: Value? = state.withLock { state in
                    if case .answered(let value) = state {
                        state = .done
                        return value
                    }
                    state = .waiting(continuation)
                    return nil
                }
                if let early { continuation.resume(returning: early) }
                start()
            }
        } onCancel: {
            if resume(value()) { onCancel() }
        }
    }

    /// Answers the waiting Task; false when it was answered already.
    @discardableResult
    func resume(_ value: Value) -> Bool {
        let (accepted, continuation): (Bool, CheckedContinuation<Value, Never>?) = state.withLock { state in
            switch state {
            case .empty:
                state = .answered(value)
                return (true, nil)
            case .waiting(let continuation):
                state = .done
                return (true, continuation)
            case .answered, .done:
                return (false, nil)
            }
        }
        continuation?.resume(returning: value)
        return accepted
    }
}
