import APNSupport
import Synchronization

/// One answer awaited by a Task that may be cancelled: the first of the answer and the
/// cancellation's value resumes the Task; the other is refused (``resume(_:)`` returns
/// false), so its sender can put it somewhere else (a report carried to the next one).
///
/// An answer that must travel before it can be given (a report going through the callback
/// queue) is decided first with ``claim()``, where it is made: from then on a cancellation
/// is refused and the Task gets that answer (``deliver(_:)``), so the answer is never
/// refused after it left — when it could no longer be put anywhere else in time.
final class CancellableWait<Value: Sendable>: Sendable {
    private enum State {
        case empty
        case waiting(CheckedContinuation<Value, Never>)
        /// Answered before the Task started waiting.
        case answered(Value)
        /// An answer is on its way (``claim()``), with the Task's continuation once it waits.
        case claimed(CheckedContinuation<Value, Never>?)
        case done
    }

    private let state = Lock(State.empty)

    /// Waits for the first value given to ``resume(_:)``, after calling `start` (which
    /// arranges for the answer), until then or until `value` when the Task is cancelled.
    func wait(cancelled value: @escaping @Sendable () -> Value, onCancel: @escaping @Sendable () -> Void = {},
              _ start: () -> Void) async -> Value {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let early: Value? = state.withLock { state in
                    switch state {
                    case .answered(let value):
                        state = .done
                        return value
                    case .claimed:
                        state = .claimed(continuation)
                    case .empty, .waiting, .done:
                        state = .waiting(continuation)
                    }
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
            case .answered, .claimed, .done:
                return (false, nil)
            }
        }
        continuation?.resume(returning: value)
        return accepted
    }

    /// Reserves the wait for the answer ``deliver(_:)`` will give: a cancellation after this
    /// is refused. False when the wait was answered already (the Task was cancelled).
    func claim() -> Bool {
        state.withLock { state in
            switch state {
            case .empty:
                state = .claimed(nil)
                return true
            case .waiting(let continuation):
                state = .claimed(continuation)
                return true
            case .answered, .claimed, .done:
                return false
            }
        }
    }

    /// Gives the answer of a wait reserved by ``claim()``; ignored otherwise.
    func deliver(_ value: Value) {
        let continuation: CheckedContinuation<Value, Never>? = state.withLock { state in
            guard case .claimed(let continuation) = state else { return nil }
            guard let continuation else {
                state = .answered(value)
                return nil
            }
            state = .done
            return continuation
        }
        continuation?.resume(returning: value)
    }
}
