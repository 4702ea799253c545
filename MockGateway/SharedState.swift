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
    /// The records at `range` (0-based positions in acceptance order), as public values.
    func records(in range: Range<Int>) -> [Record]
    /// Connections whose TLS handshake failed or timed out.
    var handshakeFailureCount: Int { get set }
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
    /// The smallest count a ``waitForRecords(count:until:)`` waits for; `Int.max` if none.
    private let recordTarget = Atomic<Int>(.max)
    private let recordTargets = Lock<[Int]>([])
    private let liveThreads = Lock<Int>(0)
    private let faultsRevisionCounter = Atomic<Int>(0)

    init(_ ledger: consuming sending Ledger) {
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
    }

    /// Counts the changes made by ``updateFaults(_:)``: a connection re-reads the faults
    /// that shape its reading (``Pacer``) only when this moved, one atomic load a read
    /// instead of a lock.
    var faultsRevision: Int { faultsRevisionCounter.load(ordering: .acquiring) }

    /// The records after the first `start`, in the order accepted (empty when `start` is
    /// not below the count), built under the lock: a snapshot.
    ///
    /// - Precondition: `start >= 0`.
    func records(from start: Int) -> [Ledger.Record] {
        precondition(start >= 0, "records(from:) needs a start of 0 or more, not \(start)")
        return read { ledger in
            start < ledger.recordCount ? ledger.records(in: start..<ledger.recordCount) : []
        }
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

    /// Whether ``requestStop()`` was called: every thread checks it between short waits.
    var isStopping: Bool { stopping.load(ordering: .sequentiallyConsistent) }

    /// Asks every thread to finish and wakes the ones waiting on the condition.
    func requestStop() {
        stopping.store(true, ordering: .sequentiallyConsistent)
        wakeWaiters(always: true)
    }

    /// Waits until `deadline`, returning early (`false`) when the gateway stops. A
    /// condition wait, not a sleep: ``requestStop()`` ends it at once.
    func pause(until deadline: ContinuousClock.Instant) -> Bool {
        !waitForChange(until: deadline) { isStopping }
    }

    // MARK: Threads

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
