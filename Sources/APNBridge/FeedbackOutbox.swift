import APNSupport
@_spi(APNBridge) package import APN
@_spi(APNBridge) import APNCore
package import APNFeedbackStore
import Foundation
import Synchronization

/// Where the bridge keeps each tenant's feedback tuples (its 410 answers) until a client
/// of the tenant was served them: the token store when a path is configured, else memory.
/// With the store, the same writer thread also keeps each tenant's resend record there
/// (``queueResendChanges(_:)``, #41), so that a restarted bridge answers resends from it.
///
/// ``queue(_:)`` is called on the provider's I/O thread, which must never block on SQLite:
/// it only appends to a list and signals the writer thread, which writes in batches. Reads
/// (``pending(tenant:limit:)``) and removals come from feedback connection threads. The
/// store is not thread-safe, so all its use is under one lock.
package final class FeedbackOutbox: Sendable {
    private let backend: Lock<Backend>
    /// Whether ``backend`` is the store: fixed at init, so ``queue(_:)`` decides without
    /// taking the backend's lock, which the writer holds through each SQLite transaction.
    private let usesStore: Bool
    private let queued = Lock(Queue())
    private let wake = NSCondition()
    private let stored = Lock<Int>(0)
    /// The store's last failure while it fails (the writer's), nil while it writes.
    private let failure = Lock<String?>(nil)
    /// The store's session ended with this bridge's lock (``bridgeLockLost``); set once.
    private let lockLost = Atomic<Bool>(false)
    private let changed: @Sendable () -> Void
    private let log: @Sendable (BridgeEvent) -> Void

    private struct Queue {
        var items: [BridgeStateStore.QueuedFeedback] = []
        /// Resend record changes not yet written, in order.
        var resend: [BridgeStateStore.ResendChange] = []
        /// Calls of the queue methods so far, and how many of them the writer has written:
        /// ``waitWritten(until:)`` waits for the second to reach the first.
        var enqueued: UInt64 = 0
        var written: UInt64 = 0
        /// A tenant's journal has work for a group commit.
        var journalWake = false
        var stopping = false
        var writerDone = true
        /// Tuples given up: over ``retryLimit`` while the store kept failing, or still
        /// failing at stop.
        var lost = 0
    }

    /// The tuples: in the store, or by tenant and token in memory (one row per token with
    /// its latest time, as the store keeps them).
    private enum Backend {
        case store(BridgeStateStore)
        case memory([String: [[UInt8]: UInt32]])
    }

    /// An outbox in the token store at `path` (opened with `storeOptions`), or in memory
    /// when nil; `changed` is called whenever tuples were stored (``storedCount`` grew);
    /// `log` hears when the store starts failing and when it recovers (once each, not per
    /// retry).
    ///
    /// - Throws: ``StoreError`` when the store cannot be opened.
    package init(
        path: String?, storeOptions: TokenStore.Options = TokenStore.Options(),
        log: @escaping @Sendable (BridgeEvent) -> Void = { _ in }, changed: @escaping @Sendable () -> Void = {}
    ) throws {
        self.changed = changed
        self.log = log
        if let path {
            backend = Lock(.store(try BridgeStateStore(location: path, options: storeOptions)))
        } else {
            backend = Lock(.memory([:]))
        }
        usesStore = path != nil
    }

    /// How many tuples were stored so far: in memory at once, in the store once written
    /// (a client reading the feedback port is then served them).
    package var storedCount: Int { stored.withLock { $0 } }

    /// Why the store failed its last write, while it fails; nil while it writes (or
    /// without a store).
    package var storeFailure: String? { failure.withLock { $0 } }

    /// Whether the store's session, and with it this bridge's lock on the store, was lost
    /// (``BridgeStateStore/bridgeLockLost``): noticed by the writer after a failed write or
    /// its maintenance, so within about a maintenance interval.
    package var bridgeLockLost: Bool { lockLost.load(ordering: .relaxed) }

    /// How many tuples were given up because the store kept failing (a full disk, say).
    package var lostCount: Int { queued.withLock { $0.lost } }

    /// How many tuples wait in memory for a store that fails before the oldest are given
    /// up: a failing disk must not grow the bridge's memory without bound.
    package static let retryLimit = 1_000_000

    /// How long the writer waits before writing again after the store failed.
    static let retryPause: TimeInterval = 1

    /// Starts the writer thread (only the store needs one); it also writes `journal`'s
    /// group commits.
    package func start() {
        start(journal: nil)
    }


    /// ``start()`` with the journal's pump, and `maintenance` run on the writer thread about
    /// every `interval`; `lockLost` is called once, on the writer thread, when the store's
    /// session turns out to have ended (``bridgeLockLost``).
    func start(
        journal: JournalPump?, every interval: Duration = .seconds(3_600), maintenance: @escaping @Sendable () -> Void = {},
        lockLost: @escaping @Sendable (_ error: String) -> Void = { _ in }
    ) {
        guard usesStore else { return }
        queued.withLock { $0.writerDone = false }
        // Without a thread of its own the writer runs on a Dispatch worker: the tuples are
        // still written.
        _ = ThreadStarter.system.startOrDispatch("bridge-store") { [self] in
            writeUntilStopped(journal: journal, every: interval, maintenance: maintenance, lockLost: lockLost)
        }
    }

    /// A tenant's journal has work: the writer makes a group commit.
    func wakeJournal() {
        queued.withLock { $0.journalWake = true }
        wake.lock()
        wake.broadcast()
        wake.unlock()
    }

    /// Queues tuples; quick and never blocking on I/O (the provider's I/O thread calls it).
    package func queue(_ items: [BridgeStateStore.QueuedFeedback]) {
        guard !items.isEmpty else { return }
        if !usesStore {
            backend.withLock { backend in
                guard case .memory(var tuples) = backend else { return }
                backend = .memory([:])  // the enum's reference dropped: the changes below copy nothing
                for item in items {
                    let token = item.entry.device.token
                    let previous = tuples[item.tenant, default: [:]][token] ?? 0
                    tuples[item.tenant, default: [:]][token] = max(previous, item.entry.unixTime)
                }
                backend = .memory(tuples)
            }
            stored.withLock { $0 += items.count }
            changed()
            return
        }
        enqueue { $0.items += items }
    }

    /// Adds to the queue under its lock, counts the call, and wakes the writer.
    private func enqueue(_ add: (inout Queue) -> Void) {
        queued.withLock {
            add(&$0)
            $0.enqueued += 1
        }
        wake.lock()
        wake.broadcast()
        wake.unlock()
    }

    /// Whether the resend record is kept in the store (else only in memory).
    package var keepsResendRecord: Bool { usesStore }

    /// Queues changes to the resend record for the writer; quick, never blocking on I/O.
    /// Without a store, nothing.
    package func queueResendChanges(_ changes: [BridgeStateStore.ResendChange]) {
        guard usesStore, !changes.isEmpty else { return }
        enqueue { $0.resend += changes }
    }

    /// Waits until everything queued before the call is in the store, or `deadline`
    /// (a store that fails); returns whether it was written. Without a store, true at
    /// once. A connection calls it before telling its client where to resend from, so that
    /// the record that answers the resends outlives this process.
    @discardableResult
    package func waitWritten(until deadline: ContinuousClock.Instant) -> Bool {
        guard usesStore else { return true }
        let target = queued.withLock { $0.enqueued }
        let limit = Date(timeIntervalSinceNow: Double(max(0, (deadline - .now).wholeMilliseconds)) / 1_000)
        wake.lock()
        defer { wake.unlock() }
        while true {
            let (written, done) = queued.withLock { ($0.written, $0.writerDone) }
            if written >= target { return true }
            if done || !wake.wait(until: limit) { return queued.withLock { $0.written >= target } }
        }
    }

    /// Registers this bridge on the store (``BridgeStateStore/registerBridgeInstance(_:startedAt:)``);
    /// nothing without a store.
    package func registerBridgeInstance(_ instance: Int64, startedAt: Int64) throws(StoreError) {
        try backend.withLock { backend throws(StoreError) in
            guard case .store(let store) = backend else { return }
            try store.registerBridgeInstance(instance, startedAt: startedAt)
        }
    }

    /// Releases this bridge's lock on the store (it stopped): the next may take its state over.
    package func releaseBridgeInstance(_ instance: Int64) {
        backend.withLock { backend in
            guard case .store(let store) = backend else { return }
            store.releaseBridgeInstance(instance)
        }
    }

    /// Takes over dead bridges' state (``BridgeStateStore/takeOverDeadBridges(instance:tenants:recordSince:plan:)``).
    package func takeOverDeadBridges(
        instance: Int64, tenants: [String], recordSince: Int64,
        plan: @Sendable (String, [BridgeStateStore.ResendRow], BridgeStateStore.JournalLeftover) -> BridgeStateStore.BridgeTakeOver
    ) throws(StoreError) -> (instances: [Int64], byTenant: [String: BridgeStateStore.BridgeTakeOver]) {
        try backend.withLock { backend throws(StoreError) -> (instances: [Int64], byTenant: [String: BridgeStateStore.BridgeTakeOver]) in
            guard case .store(let store) = backend else { return ([], [:]) }
            return try store.takeOverDeadBridges(instance: instance, tenants: tenants, recordSince: recordSince, plan: plan)
        }
    }

    /// Other bridges' record rows for `tenant` (``BridgeStateStore/peerResendRows(tenant:excluding:since:)``).
    package func peerResendRows(tenant: String, excluding instance: Int64, since: Int64) throws(StoreError)
        -> [BridgeStateStore.ResendRow]
    {
        try backend.withLock { backend throws(StoreError) -> [BridgeStateStore.ResendRow] in
            guard case .store(let store) = backend else { return [] }
            return try store.peerResendRows(tenant: tenant, excluding: instance, since: since)
        }
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

    /// How long a feedback visit's claim on its tuples lasts in the store: far longer than
    /// writing 10,000 tuples takes; a bridge that dies mid-visit leaves them to be served
    /// again after it.
    static let claimDuration: Duration = .seconds(60)

    /// At most `limit` of `tenant`'s tuples, oldest first, claimed in the store for this
    /// visit: another bridge on the store serves none of them meanwhile (#41). Settle with
    /// ``removeServed(tenant:_:)`` or ``release(tenant:_:)``. Without a store, ``pending(tenant:limit:)``.
    package func claim(tenant: String, limit: Int) -> [Feedback.Entry] {
        let now = Int64((Date().timeIntervalSince1970 * 1_000).rounded())
        let claimed: [Feedback.Entry]? = backend.withLock { backend in
            guard case .store(let store) = backend else { return nil }
            return (try? store.claimFeedback(
                tenant: tenant, limit: limit, now: now, until: now + Self.claimDuration.wholeMilliseconds)) ?? []
        }
        return claimed ?? pending(tenant: tenant, limit: limit)
    }

    /// Gives a visit's claimed tuples up unserved (the client went away): the next visit,
    /// here or at another bridge, serves them.
    package func release(tenant: String, _ entries: [Feedback.Entry]) {
        backend.withLock { backend in
            guard case .store(let store) = backend else { return }
            try? store.releaseFeedback(tenant: tenant, entries)
        }
    }

    /// Removes tuples served to a client of `tenant` (a later time for a token stays).
    package func removeServed(tenant: String, _ served: [Feedback.Entry]) {
        backend.withLock { backend in
            switch backend {
            case .store(let store):
                _ = try? store.removeServedFeedback(tenant: tenant, served)
            case .memory(var tuples):
                backend = .memory([:])  // as in queue(_:): no copy of the table
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

    /// The writer thread: takes what is queued, writes it (the tuples in one transaction,
    /// the resend changes in another, the journal's group commit in a third), until
    /// stopped; at the stop it writes what is left first.
    private func writeUntilStopped(
        journal: JournalPump?, every interval: Duration, maintenance: () -> Void, lockLost: (String) -> Void
    ) {
        var failing = false
        var nextMaintenance = ContinuousClock.now + interval
        while true {
            if ContinuousClock.now >= nextMaintenance {
                maintenance()
                nextMaintenance = ContinuousClock.now + interval
                // The maintenance talks to the store when nothing else does: an idle
                // bridge notices a lost session too.
                noticeLockLoss(lockLost)
            }
            wake.lock()
            var batch: [BridgeStateStore.QueuedFeedback] = []
            var resend: [BridgeStateStore.ResendChange] = []
            var stopping = false
            var journalDue = false
            var through: UInt64 = 0
            while true {
                (batch, resend, stopping, journalDue, through) = queued.withLock { queue in
                    defer {
                        queue.items.removeAll()
                        queue.resend.removeAll()
                        queue.journalWake = false
                    }
                    return (queue.items, queue.resend, queue.stopping, queue.journalWake, queue.enqueued)
                }
                if !batch.isEmpty || !resend.isEmpty || stopping || journalDue { break }
                // Woken by work, or in time for the maintenance.
                if !wake.wait(until: Date(timeIntervalSinceNow: max(0, Double((nextMaintenance - .now).wholeMilliseconds) / 1_000))) {
                    break
                }
            }
            wake.unlock()
            var failure: String?
            if !batch.isEmpty || !resend.isEmpty {
                var feedbackWritten = batch.isEmpty
                failure = backend.withLock { backend -> String? in
                    guard case .store(let store) = backend else { return "no store" }
                    do throws(StoreError) {
                        if !batch.isEmpty { try store.queueFeedback(batch) }
                        feedbackWritten = true
                        try store.applyResendChanges(resend)
                        return nil
                    } catch {
                        return "\(error)"
                    }
                }
                if feedbackWritten && !batch.isEmpty {
                    stored.withLock { $0 += batch.count }
                    changed()
                }
                if failure != nil { keepForRetry(feedbackWritten ? [] : batch, resend: resend, stopping: stopping) }
            }
            // The journal: one group commit, or (stopping) until nothing is left.
            var journaled = false
            if let journal, failure == nil {
                repeat {
                    let outcome = backend.withLock { backend -> StoreError?? in
                        guard case .store(let store) = backend else { return .none }
                        return journal.step(store)
                    }
                    guard case .some(let error) = outcome else { break }
                    journaled = true
                    if let error {
                        failure = "\(error)"
                        break
                    }
                } while stopping
            }
            if let failure {
                if !failing { log(.feedbackStoreFailed(error: failure, waiting: waitingCount)) }
                failing = true
                self.failure.withLock { $0 = failure }
                noticeLockLoss(lockLost)
                if stopping { break }
                // A pause, not a poll: a queue(_:) or stop() meanwhile ends it early.
                wake.lock()
                _ = wake.wait(until: Date(timeIntervalSinceNow: Self.retryPause))
                wake.unlock()
                // A batch the journal could not write is written again.
                if journal != nil { queued.withLock { $0.journalWake = true } }
                continue
            }
            queued.withLock { $0.written = through }
            wake.lock()
            wake.broadcast()
            wake.unlock()
            if failing && (!batch.isEmpty || !resend.isEmpty || journaled) { log(.feedbackStoreRecovered) }
            if !batch.isEmpty || !resend.isEmpty || journaled {
                failing = false
                self.failure.withLock { $0 = nil }
            }
            if stopping && batch.isEmpty && resend.isEmpty { break }
        }
        queued.withLock { $0.writerDone = true }
        wake.lock()
        wake.broadcast()
        wake.unlock()
    }

    /// Calls `lost` once, with the store's last failure, when the store's session (and the
    /// bridge's lock) turns out to be gone.
    private func noticeLockLoss(_ lost: (String) -> Void) {
        let gone = backend.withLock { backend in
            guard case .store(let store) = backend else { return false }
            return store.bridgeLockLost
        }
        guard gone, !lockLost.exchange(true, ordering: .relaxed) else { return }
        lost(storeFailure ?? "the store's session ended")
    }

    /// Tuples queued and not yet written.
    private var waitingCount: Int { queued.withLock { $0.items.count } }

    /// How many of `tenant`'s tuples wait to be served: in the store (or memory), and
    /// queued for the store's writer. nil when the store cannot say (it is failing).
    package func pendingCount(tenant: String) -> Int? {
        let unwritten = queued.withLock { $0.items.count { $0.tenant == tenant } }
        return backend.withLock { backend -> Int? in
            switch backend {
            case .store(let store): (try? store.pendingFeedbackCount(tenant: tenant)).map { $0 + unwritten }
            case .memory(let tuples): (tuples[tenant]?.count ?? 0) + unwritten
            }
        }
    }

    /// A batch the store refused goes back in front of the queue, to be written on the
    /// next try: a 410 is not lost to a passing failure. Beyond ``retryLimit`` waiting, or
    /// at stop, the oldest are given up and counted (``lostCount``).
    private func keepForRetry(_ batch: [BridgeStateStore.QueuedFeedback], resend: [BridgeStateStore.ResendChange], stopping: Bool) {
        queued.withLock { queue in
            if stopping {
                queue.lost += batch.count + queue.items.count
                queue.items.removeAll()
                queue.resend.removeAll()
                return
            }
            queue.items = batch + queue.items
            // The record's changes stay in order; beyond the limit the oldest go (a resend
            // then finds no entry after a restart and is forwarded again).
            queue.resend = resend + queue.resend
            if queue.resend.count > Self.retryLimit { queue.resend.removeFirst(queue.resend.count - Self.retryLimit) }
            let excess = queue.items.count - Self.retryLimit
            if excess > 0 {
                queue.items.removeFirst(excess)
                queue.lost += excess
            }
        }
    }
}
