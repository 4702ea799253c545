package import APN
package import APNFeedbackStore
import APNTLS
import Foundation
import Synchronization

/// Where the bridge keeps each tenant's feedback tuples (its 410 answers) until a client
/// of the tenant was served them: the token store when a path is configured, else memory.
///
/// ``queue(_:)`` is called on the provider's I/O thread, which must never block on SQLite:
/// it only appends to a list and signals the writer thread, which writes in batches. Reads
/// (``pending(tenant:limit:)``) and removals come from feedback connection threads. The
/// store is not thread-safe, so all its use is under one lock.
package final class FeedbackOutbox: Sendable {
    private let backend: Lock<Backend>
    private let queued = Lock(Queue())
    private let wake = NSCondition()
    private let stored = Lock<Int>(0)
    private let changed: @Sendable () -> Void

    private struct Queue {
        var items: [TokenStore.QueuedFeedback] = []
        var stopping = false
        var writerDone = true
    }

    /// The tuples: in the store, or by tenant and token in memory (one row per token with
    /// its latest time, as the store keeps them).
    private enum Backend {
        case store(TokenStore)
        case memory([String: [[UInt8]: UInt32]])
    }

    /// An outbox in the token store at `path`, or in memory when nil; `changed` is called
    /// whenever tuples were stored (``storedCount`` grew).
    ///
    /// - Throws: ``StoreError`` when the store cannot be opened.
    package init(path: String?, changed: @escaping @Sendable () -> Void = {}) throws {
        self.changed = changed
        if let path {
            backend = Lock(.store(try TokenStore(path: path)))
        } else {
            backend = Lock(.memory([:]))
        }
    }

    /// How many tuples were stored so far: in memory at once, in the store once written
    /// (a client reading the feedback port is then served them).
    package var storedCount: Int { stored.withLock { $0 } }

    /// Starts the writer thread (only the store needs one).
    package func start() {
        let usesStore = backend.withLock { if case .store = $0 { true } else { false } }
        guard usesStore else { return }
        queued.withLock { $0.writerDone = false }
        let thread = Thread { [self] in writeUntilStopped() }
        thread.name = "bridge-feedback"
        thread.start()
    }

    /// Queues tuples; quick and never blocking on I/O (the provider's I/O thread calls it).
    package func queue(_ items: [TokenStore.QueuedFeedback]) {
        guard !items.isEmpty else { return }
        let inMemory = backend.withLock { backend -> Bool in
            guard case .memory(var tuples) = backend else { return false }
            for item in items {
                let token = item.entry.device.token
                let previous = tuples[item.tenant, default: [:]][token] ?? 0
                tuples[item.tenant, default: [:]][token] = max(previous, item.entry.unixTime)
            }
            backend = .memory(tuples)
            return true
        }
        if inMemory {
            stored.withLock { $0 += items.count }
            changed()
            return
        }
        queued.withLock { $0.items += items }
        wake.lock()
        wake.broadcast()
        wake.unlock()
    }

    /// At most `limit` of `tenant`'s tuples, oldest first; an empty list when the store fails.
    package func pending(tenant: String, limit: Int) -> [Feedback.Entry] {
        backend.withLock { backend in
            switch backend {
            case .store(let store):
                return (try? store.pendingFeedback(tenant: tenant, limit: limit)) ?? []
            case .memory(let tuples):
                let entries = (tuples[tenant] ?? [:]).map { Feedback.Entry(unixTime: $0.value, device: Device(unvalidated: $0.key)) }
                return Array(
                    entries.sorted {
                        $0.unixTime != $1.unixTime
                            ? $0.unixTime < $1.unixTime : $0.device.token.lexicographicallyPrecedes($1.device.token)
                    }
                        .prefix(limit))
            }
        }
    }

    /// Removes tuples served to a client of `tenant` (a later time for a token stays).
    package func removeServed(tenant: String, _ served: [Feedback.Entry]) {
        backend.withLock { backend in
            switch backend {
            case .store(let store):
                _ = try? store.removeServedFeedback(tenant: tenant, served)
            case .memory(var tuples):
                for entry in served where tuples[tenant]?[entry.device.token] == entry.unixTime {
                    tuples[tenant]?[entry.device.token] = nil
                }
                backend = .memory(tuples)
            }
        }
    }

    /// Writes what is queued, then ends the writer thread; waits for it.
    package func stop() {
        queued.withLock { $0.stopping = true }
        wake.lock()
        wake.broadcast()
        while !queued.withLock({ $0.writerDone }) { wake.wait() }
        wake.unlock()
    }

    /// The writer thread: takes what is queued, writes it in one transaction, until stopped.
    private func writeUntilStopped() {
        while true {
            wake.lock()
            var batch: [TokenStore.QueuedFeedback] = []
            var stopping = false
            while true {
                (batch, stopping) = queued.withLock { queue in
                    defer { queue.items.removeAll() }
                    return (queue.items, queue.stopping)
                }
                if !batch.isEmpty || stopping { break }
                wake.wait()
            }
            wake.unlock()
            if !batch.isEmpty {
                backend.withLock { backend in
                    // A failed write loses these tuples: feedback is advisory, and the
                    // bridge must go on forwarding (the client is never told either way).
                    if case .store(let store) = backend { try? store.queueFeedback(batch) }
                }
                stored.withLock { $0 += batch.count }
                changed()
            }
            if stopping && batch.isEmpty { break }
        }
        queued.withLock { $0.writerDone = true }
        wake.lock()
        wake.broadcast()
        wake.unlock()
    }
}
