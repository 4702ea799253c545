import APNTLS
import Foundation
import Synchronization

/// What ``GatewayState`` needs of the ledger it guards: the binary gateway's ``Ledger`` and
/// the HTTP/2 gateway's ``HTTP2Ledger`` both keep their faults, their accepted records and
/// the handshakes that failed.
protocol GatewayLedger: ~Copyable, SendableMetatype {
    /// The gateway's fault script.
    associatedtype Faults
    /// The faults in force.
    var faults: Faults { get set }
    /// How many notifications were accepted.
    var recordCount: Int { get }
    /// An accepted notification as the gateway's public API shows it.
    associatedtype Record: Sendable
    /// The records at `range` (0-based positions in acceptance order, from
    /// ``firstKeptRecord``), as public values.
    func records(in range: Range<Int>) -> [Record]
    /// The position (0-based) of the oldest record still kept in memory (``RecordRetention``).
    var firstKeptRecord: Int { get }
    /// How many more records may be kept before the connections must wait for a release;
    /// `Int.max` when the retention discards instead.
    var recordRoom: Int { get }
    /// Frees the records at positions below `end`.
    mutating func releaseRecords(upTo end: Int)
    /// Connections whose TLS handshake failed or timed out.
    var handshakeFailureCount: Int { get set }
    /// Connections closed by the ``ConnectionLimits`` or for want of a thread.
    var connectionCounters: ConnectionCounters { get set }
}

/// The binary gateway's shared state.
typealias SharedState = GatewayState<Ledger>

/// The state a gateway's threads share, and the waiting built on it: one class for the
/// binary and the HTTP/2 gateway, each with its own ledger.
///
/// The ledger lives in a `Mutex`; every change goes through ``update(_:)``, which
/// wakes the threads waiting in ``wait(until:for:)`` through one `NSCondition`. Waiters
/// announce themselves in an atomic counter *before* they test their condition, so an
/// update that finds no waiter cannot be missed by one, and an update with no waiter
/// does not touch the condition at all (the accept-and-record path stays cheap).
final class GatewayState<Ledger: GatewayLedger & ~Copyable>: Sendable {
    private let ledger: Lock<Ledger>
    // NSCondition is thread-safe; it only pairs waiters with updates and guards nothing.
    private let condition = NSCondition()
    private let waiters = Atomic<Int>(0)
    private let stopping = Atomic<Bool>(false)
    private let recordCounter = Atomic<Int>(0)
    /// Whether the ledger has room for another record (``GatewayLedger/recordRoom``), for
    /// connections to check without the lock.
    private let recordRoomLeft = Atomic<Bool>(true)
    /// Connection threads running (or about to), for ``ConnectionLimits/maxConnections``.
    private let connectionThreads = Atomic<Int>(0)
    /// The smallest count a ``waitForRecords(count:until:)`` waits for; `Int.max` if none.
    private let recordTarget = Atomic<Int>(.max)
    private let recordTargets = Lock<[Int]>([])
    private let liveThreads = Lock<Int>(0)
    private let faultsRevisionCounter = Atomic<Int>(0)
    /// Raised once by ``requestStop()`` and never reset: every thread polls it beside its
    /// socket, so a stop ends each wait at once, whatever the peer does.
    let stopSignal: WakeSignal
    /// The signals of the threads that also want waking when the faults change
    /// (``watchFaults(_:)``); raised by ``updateFaults(_:)`` and ``requestStop()``.
    private let faultWatchers = Lock<[ObjectIdentifier: WakeSignal]>([:])

    /// How the gateway's threads are started (tests give one that fails).
    let threadStarter: ThreadStarter

    /// - Throws: `TLSError` when the stop signal's pipe cannot be made.
    init(_ ledger: consuming sending Ledger, threadStarter: ThreadStarter = .system) throws(TLSError) {
        self.stopSignal = try WakeSignal()
        self.ledger = Lock(ledger)
        self.threadStarter = threadStarter
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
        wakeWaiters(always: reached)
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
        precondition(start >= 0 && limit >= 0, "records(from:limit:) needs 0 or more, not \(start), \(limit)")
        return read { ledger in
            let first = max(start, ledger.firstKeptRecord)
            guard first < ledger.recordCount else { return [] }
            let end = first + min(limit, ledger.recordCount - first)
            return ledger.records(in: first..<end)
        }
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
            if waitForChange(until: deadline.map { min($0, slice) } ?? slice, { hasRecordRoom }) { return true }
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
        return waitForChange(until: deadline, countingAsWaiter: false) { recordCount >= count }
    }

    /// Waits until `condition` holds for the ledger or `deadline` passes (or the gateway
    /// stops); returns whether it held.
    func wait(until deadline: ContinuousClock.Instant, for predicate: (borrowing Ledger) -> Bool) -> Bool {
        waitForChange(until: deadline) { ledger.withLock { predicate($0) } }
    }

    // MARK: Stopping

    /// Whether ``requestStop()`` was called: every thread checks it after each wait.
    var isStopping: Bool { stopping.load(ordering: .sequentiallyConsistent) }

    /// Asks every thread to finish: wakes the ones waiting on the condition, and raises
    /// ``stopSignal`` and the fault watchers' signals, ending every `poll()`.
    func requestStop() {
        stopping.store(true, ordering: .sequentiallyConsistent)
        wakeWaiters(always: true)
        stopSignal.signal()
        for signal in faultWatchers.withLock({ Array($0.values) }) { signal.signal() }
    }

    /// Waits until `deadline`, returning early (`false`) when the gateway stops. A
    /// condition wait, not a sleep: ``requestStop()`` ends it at once.
    func pause(until deadline: ContinuousClock.Instant) -> Bool {
        !waitForChange(until: deadline) { isStopping }
    }

    // MARK: Threads

    /// Connection threads running or starting.
    var connectionThreadCount: Int { connectionThreads.load(ordering: .sequentiallyConsistent) }

    /// Counts a connection thread about to start (``connectionThreadCount``).
    func connectionStarting() {
        connectionThreads.add(1, ordering: .sequentiallyConsistent)
    }

    /// A connection thread ended (or never started).
    func connectionEnded() {
        connectionThreads.subtract(1, ordering: .sequentiallyConsistent)
    }

    /// Counts a thread that is about to start.
    func threadStarting() {
        liveThreads.withLock { $0 += 1 }
    }

    /// Counts a thread that has finished its work.
    func threadFinished() {
        liveThreads.withLock { $0 -= 1 }
        wakeWaiters(always: true)
    }

    /// Waits until every counted thread has finished or `deadline` passes.
    func waitForThreads(until deadline: ContinuousClock.Instant) -> Bool {
        waitForChange(until: deadline, ignoringStop: true) { liveThreads.withLock { $0 == 0 } }
    }

    // MARK: The condition

    private func wakeWaiters(always: Bool = false) {
        guard always || waiters.load(ordering: .sequentiallyConsistent) > 0 else { return }
        condition.lock()
        condition.broadcast()
        condition.unlock()
    }

    /// Waits on the condition until `satisfied()` or the deadline; a stop request ends the
    /// wait unless `ignoringStop`. Returns `satisfied()` as last seen.
    /// `countingAsWaiter: false` for waits whose wake-ups are arranged otherwise (record
    /// counts), so they do not make every update broadcast.
    private func waitForChange(
        until deadline: ContinuousClock.Instant, ignoringStop: Bool = false, countingAsWaiter: Bool = true,
        _ satisfied: () -> Bool
    ) -> Bool {
        if countingAsWaiter { waiters.add(1, ordering: .sequentiallyConsistent) }
        defer { if countingAsWaiter { waiters.subtract(1, ordering: .sequentiallyConsistent) } }
        condition.lock()
        defer { condition.unlock() }
        while true {
            if satisfied() { return true }
            if !ignoringStop && isStopping { return false }
            let remaining = deadline - ContinuousClock.now
            if remaining <= .zero { return false }
            _ = condition.wait(until: Date(timeIntervalSinceNow: remaining.timeInterval))
        }
    }
}

extension Duration {
    /// The duration in seconds, as Foundation counts time.
    var timeInterval: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
