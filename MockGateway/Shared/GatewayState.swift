import APNSupport
import APNTLS
import APNGatewayServer
import Synchronization

/// The state a mock gateway's threads share, and the waiting built on it: one class for the
/// binary and the HTTP/2 gateway, each with its own ledger, beside the server core's
/// ``server`` state (the stop, the threads, the counters), whose condition it shares.
///
/// The ledger lives in a `Mutex`; every change goes through ``update(_:)``, which
/// wakes the threads waiting in ``wait(until:for:)`` through the server's condition.
/// Waiters announce themselves before they test their condition, so an update that finds
/// no waiter cannot be missed by one, and an update with no waiter does not touch the
/// condition at all (the accept-and-record path stays cheap).
final class GatewayState<Ledger: GatewayLedger & ~Copyable>: Sendable {
    /// The server core's state: the stop and its signal, the threads, the counters.
    let server: ServerState
    private let ledger: Lock<Ledger>
    private let recordCounter = Atomic<Int>(0)
    /// Whether the ledger has room for another record (``GatewayLedger/recordRoom``), for
    /// connections to check without the lock.
    private let recordRoomLeft = Atomic<Bool>(true)
    /// The smallest count a ``waitForRecords(count:until:)`` waits for; `Int.max` if none.
    private let recordTarget = Atomic<Int>(.max)
    private let recordTargets = Lock<[Int]>([])
    private let faultsRevisionCounter = Atomic<Int>(0)
    /// The signals of the threads that also want waking when the faults change
    /// (``watchFaults(_:)``); raised by ``updateFaults(_:)`` and ``requestStop()``.
    private let faultWatchers = Lock<[ObjectIdentifier: WakeSignal]>([:])

    /// - Throws: `TLSError` when the stop signal's pipe cannot be made.
    init(_ ledger: consuming sending Ledger, threadStarter: ThreadStarter = .system) throws(TLSError) {
        server = try ServerState(threadStarter: threadStarter)
        self.ledger = Lock(ledger)
    }

    /// Reads the ledger.
    func read<T: Sendable>(_ body: (borrowing Ledger) -> T) -> T {
        ledger.withLock { body($0) }
    }

    /// Changes the ledger and wakes the waiters.
    @discardableResult
    func update<T: Sendable>(_ body: (inout Ledger) -> T) -> T {
        let result = ledger.withLock { ledger in
            let result = body(&ledger)
            recordCounter.store(ledger.recordCount, ordering: .sequentiallyConsistent)
            recordRoomLeft.store(ledger.recordRoom > 0, ordering: .sequentiallyConsistent)
            return result
        }
        // Record waiters are woken only once their count is reached, not on every read a
        // connection records: a waiter woken hundreds of times a second costs the
        // recording thread its core.
        let reached = recordCount >= recordTarget.load(ordering: .sequentiallyConsistent)
        server.wakeWaiters(always: reached)
        return result
    }

    /// Changes the faults from outside the connections and announces it through
    /// ``faultsRevision``.
    func updateFaults(_ change: (inout Ledger.Faults) -> Void) {
        update { change(&$0.faults) }
        faultsRevisionCounter.add(1, ordering: .releasing)
        for signal in faultWatchers.withLock({ Array($0.values) }) { signal.signal() }
    }

    /// Raises `signal` at every change of the faults and at the stop, until
    /// ``unwatchFaults(_:)``: for a thread whose wait depends on the faults. Check
    /// ``isStopping`` and the faults after calling it: what changed before is not signalled.
    func watchFaults(_ signal: WakeSignal) {
        faultWatchers.withLock { $0[ObjectIdentifier(signal)] = signal }
    }

    /// Stops raising a signal given to ``watchFaults(_:)``.
    func unwatchFaults(_ signal: WakeSignal) {
        _ = faultWatchers.withLock { $0.removeValue(forKey: ObjectIdentifier(signal)) }
    }

    /// Counts the changes made by ``updateFaults(_:)``: a connection re-reads the faults
    /// that shape its reading (``Pacer``) only when this moved, one atomic load a read
    /// instead of a lock.
    var faultsRevision: Int { faultsRevisionCounter.load(ordering: .acquiring) }

    /// At most `limit` records from position `start` (0-based) on, in the order accepted
    /// (empty when `start` is not below the count), built under the lock: a snapshot. Records
    /// no longer kept (``RecordRetention``) are skipped: it starts at the oldest kept when
    /// `start` lies before it.
    ///
    /// - Precondition: `start >= 0`, `limit >= 0`.
    func records(from start: Int, limit: Int = .max) -> [Ledger.Record] {
        withKeptRecords(from: start, limit: limit) { ledger, range in range.isEmpty ? [] : ledger.records(in: range) }
    }

    /// Calls `body` under the lock with the positions of at most `limit` records kept from
    /// position `start` (0-based) on: from the oldest kept when `start` lies before it, an
    /// empty range at `start` when there are none.
    ///
    /// - Precondition: `start >= 0`, `limit >= 0`.
    func withKeptRecords<T: Sendable>(
        from start: Int, limit: Int, _ body: (borrowing Ledger, Range<Int>) -> T
    ) -> T {
        precondition(start >= 0 && limit >= 0, "records(from:limit:) needs 0 or more, not \(start), \(limit)")
        return read { ledger in
            let first = max(start, ledger.firstKeptRecord)
            guard first < ledger.recordCount else { return body(ledger, start..<start) }
            return body(ledger, first..<first + min(limit, ledger.recordCount - first))
        }
    }

    /// Appends the record file's lines of at most `limit` records from position `start` on
    /// (as ``records(from:limit:)`` picks them) to `lines`; returns the position after the
    /// last one appended (`start` when none was). The records are copied under the lock in
    /// one acquisition and formatted after it is released: the connections record on meanwhile.
    func appendRecordLines(from start: Int, limit: Int, to lines: inout RecordLineBuffer) -> Int {
        var copy = Ledger.RecordCopy()
        let end = withKeptRecords(from: start, limit: limit) { ledger, range in
            ledger.copyRecords(range, into: &copy)
            return range.upperBound
        }
        copy.appendLines(to: &lines)
        return end
    }

    /// Frees the records at positions below `end` and wakes connections waiting for room.
    func releaseRecords(upTo end: Int) {
        update { $0.releaseRecords(upTo: end) }
    }

    /// How many records are no longer kept: discarded, or released.
    var discardedRecordCount: Int {
        read { $0.firstKeptRecord }
    }

    /// Whether another record may be kept now, without the lock.
    var hasRecordRoom: Bool { recordRoomLeft.load(ordering: .sequentiallyConsistent) }

    /// Waits until another record may be kept, or `deadline` passes (`nil`: no deadline);
    /// `false` when the gateway stops first.
    func waitForRecordRoom(until deadline: ContinuousClock.Instant? = nil) -> Bool {
        while !isStopping {
            let slice = ContinuousClock.now + .seconds(3600)
            if server.waitForChange(until: deadline.map { min($0, slice) } ?? slice, { hasRecordRoom }) { return true }
            if let deadline, ContinuousClock.now >= deadline { return false }
        }
        return false
    }

    /// How many notifications were accepted, without taking the ledger's lock: a waiter
    /// checking it after every wake-up must not contend with the connection recording.
    var recordCount: Int { recordCounter.load(ordering: .sequentiallyConsistent) }

    /// Waits until `count` notifications were accepted or `deadline` passes (or the
    /// gateway stops); returns whether they were.
    func waitForRecords(count: Int, until deadline: ContinuousClock.Instant) -> Bool {
        // The target is announced before the count is checked, and `update` stores the
        // count before it reads the target (both sequentially consistent): either this
        // waiter sees the new count, or the update sees the target and wakes it.
        recordTargets.withLock { targets in
            targets.append(count)
            recordTarget.store(targets.min() ?? .max, ordering: .sequentiallyConsistent)
        }
        defer {
            recordTargets.withLock { targets in
                if let index = targets.firstIndex(of: count) { targets.remove(at: index) }
                recordTarget.store(targets.min() ?? .max, ordering: .sequentiallyConsistent)
            }
        }
        return server.waitForChange(until: deadline, countingAsWaiter: false) { recordCount >= count }
    }

    /// Waits until `condition` holds for the ledger or `deadline` passes (or the gateway
    /// stops); returns whether it held.
    func wait(until deadline: ContinuousClock.Instant, for predicate: (borrowing Ledger) -> Bool) -> Bool {
        server.waitForChange(until: deadline) { ledger.withLock { predicate($0) } }
    }

    // MARK: Stopping

    /// Whether ``requestStop()`` was called: every thread checks it after each wait.
    var isStopping: Bool { server.isStopping }

    /// Asks every thread to finish (`ServerState.requestStop()`), and
    /// raises the fault watchers' signals too.
    func requestStop() {
        server.requestStop()
        for signal in faultWatchers.withLock({ Array($0.values) }) { signal.signal() }
    }

    /// Waits until every thread has finished or `deadline` passes.
    func waitForThreads(until deadline: ContinuousClock.Instant) -> Bool {
        server.waitForThreads(until: deadline)
    }
}
