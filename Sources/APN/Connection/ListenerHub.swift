import APNTLS
import Dispatch
import Synchronization

/// A connection's listeners.
typealias EventHub = ListenerHub<ConnectionEvent>

/// The event listeners of one connection or feedback poller: closures from `on(_:)` and
/// the continuations behind the async sequences. Registered from any thread, called on
/// the callback queue.
final class ListenerHub<Event: Sendable>: Sendable {
    typealias Listener = @Sendable (Event) -> Void

    private struct State {
        var listeners: [(id: Int, listener: Listener)] = []
        var finishers: [Int: @Sendable () -> Void] = [:]
        var nextID = 0
        var finished = false
        var streamsClosed = false
    }

    private let state = Lock(State())
    private let listening = Atomic<Bool>(false)

    /// Whether anyone listens: events are only produced then.
    var hasListeners: Bool { listening.load(ordering: .relaxed) }

    /// Adds a listener; `onFinish` runs when the connection has shut down. Returns nil when
    /// it already has, or when `onFinish` is given while streams are closed
    /// (``closeStreams()``): the listener is not added and `onFinish` runs at once, or on
    /// `refusedQueue` when given — after the events already enqueued there, so that a
    /// stream refused after an event was sent does not end before the event is delivered.
    func add(
        _ listener: @escaping Listener, onFinish: (@Sendable () -> Void)? = nil,
        finishingRefusedOn refusedQueue: DispatchQueue? = nil
    ) -> Int? {
        let id: Int? = state.withLock { state in
            if state.finished || (onFinish != nil && state.streamsClosed) { return nil }
            state.nextID += 1
            state.listeners.append((state.nextID, listener))
            if let onFinish { state.finishers[state.nextID] = onFinish }
            // Under the lock, so concurrent adds and removes leave the flag right.
            listening.store(true, ordering: .relaxed)
            return state.nextID
        }
        if id == nil, let onFinish {
            if let refusedQueue { refusedQueue.async(execute: onFinish) } else { onFinish() }
        }
        return id
    }

    func remove(_ id: Int) {
        state.withLock { state in
            state.listeners.removeAll { $0.id == id }
            state.finishers[id] = nil
            listening.store(!state.listeners.isEmpty, ordering: .relaxed)
        }
    }

    /// The listeners now, in the order they were added.
    func snapshot() -> [Listener] {
        state.withLock { $0.listeners.map(\.listener) }
    }

    /// The connection has shut down: ends every stream, drops every listener.
    func finish() {
        let finishers = state.withLock { state in
            state.finished = true
            state.listeners.removeAll()
            let finishers = Array(state.finishers.values)
            state.finishers.removeAll()
            listening.store(false, ordering: .relaxed)
            return finishers
        }
        for finisher in finishers { finisher() }
    }

    /// Closes the streams (the listeners added with `onFinish`) without ending them yet:
    /// returns their ids for ``finishStreams(_:)``; streams added from now until
    /// ``reopenStreams()`` end at once. Plain listeners are kept.
    func closeStreams() -> [Int] {
        state.withLock { state in
            state.streamsClosed = true
            return Array(state.finishers.keys)
        }
    }

    /// Streams may be added again.
    func reopenStreams() {
        state.withLock { $0.streamsClosed = false }
    }

    /// Ends the streams `ids` (those still here) and drops their listeners.
    func finishStreams(_ ids: [Int]) {
        let finishers = state.withLock { state in
            let ended = Set(ids)
            state.listeners.removeAll { ended.contains($0.id) }
            let finishers = ids.compactMap { state.finishers.removeValue(forKey: $0) }
            listening.store(!state.listeners.isEmpty, ordering: .relaxed)
            return finishers
        }
        for finisher in finishers { finisher() }
    }
}
