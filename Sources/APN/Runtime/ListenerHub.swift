import APNSupport
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
        /// The listeners that asked not to be given the per-item events (a connection's
        /// `transmitted`).
        var sparing: Set<Int> = []
        var finishers: [Int: @Sendable () -> Void] = [:]
        var nextID = 0
        var finished = false
        var streamsClosed = false
    }

    private let state = Lock(State())
    private let listening = Atomic<Bool>(false)
    private let listeningToAll = Atomic<Bool>(false)

    /// Whether anyone listens: events are only produced then.
    var hasListeners: Bool { listening.load(ordering: .relaxed) }

    /// Whether a listener wants every event, the per-item ones too (those added with
    /// `sparing: false`); per-item events are only produced then.
    var hasListenersToAll: Bool { listeningToAll.load(ordering: .relaxed) }

    /// Adds a listener; `onFinish` runs when the connection has shut down. Returns nil when
    /// it already has, or when `onFinish` is given while streams are closed
    /// (``closeStreams()``): the listener is not added and `onFinish` runs at once, or on
    /// `refusedQueue` when given — after the events already enqueued there, so that a
    /// stream refused after an event was sent does not end before the event is delivered.
    /// `sparing`: the listener filters out per-item events itself, and does not count
    /// for ``hasListenersToAll``.
    func add(
        _ listener: @escaping Listener, onFinish: (@Sendable () -> Void)? = nil,
        finishingRefusedOn refusedQueue: DispatchQueue? = nil, sparing: Bool = false
    ) -> Int? {
        let id: Int? = state.withLock { state in
            if state.finished || (onFinish != nil && state.streamsClosed) { return nil }
            state.nextID += 1
            state.listeners.append((state.nextID, listener))
            if let onFinish { state.finishers[state.nextID] = onFinish }
            if sparing { state.sparing.insert(state.nextID) }
            // Under the lock, so concurrent adds and removes leave the flags right.
            updateFlags(state)
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
            state.sparing.remove(id)
            updateFlags(state)
        }
    }

    private func updateFlags(_ state: State) {
        listening.store(!state.listeners.isEmpty, ordering: .relaxed)
        listeningToAll.store(state.listeners.contains { !state.sparing.contains($0.id) }, ordering: .relaxed)
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
            state.sparing.removeAll()
            let finishers = Array(state.finishers.values)
            state.finishers.removeAll()
            updateFlags(state)
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
            state.sparing.subtract(ended)
            let finishers = ids.compactMap { state.finishers.removeValue(forKey: $0) }
            updateFlags(state)
            return finishers
        }
        for finisher in finishers { finisher() }
    }
}
