package import APNSupport
package import APNTLS
import Foundation
import Synchronization

/// What a gateway server's threads share, whatever they serve: the stop flag and its
/// wake-up signal, the thread counts a stop waits for (``waitForThreads(until:)``), the connections the
/// server closed on its own (``ServerCounters``), and one condition every wait is built on.
///
/// Waiters announce themselves in an atomic counter *before* they test their condition, so
/// a change that finds no waiter cannot be missed by one, and a change with no waiter does
/// not touch the condition at all (an application's hot path, such as the mock's recording,
/// stays cheap). An application keeps its own state beside this one and shares the
/// condition through ``waitForChange(until:ignoringStop:countingAsWaiter:_:)`` and
/// ``wakeWaiters(always:)`` (the mock's `GatewayState` does).
package final class ServerState: Sendable {
    // NSCondition is thread-safe; it only pairs waiters with changes and guards nothing.
    private let condition = NSCondition()
    private let waiters = Atomic<Int>(0)
    private let stopping = Atomic<Bool>(false)
    private let counted = Lock(ServerCounters())
    /// Connection threads running (or about to), for ``ConnectionLimits/maxConnections``.
    private let connectionThreads = Atomic<Int>(0)
    private let liveThreads = Lock<Int>(0)
    /// Raised once by ``requestStop()`` and never reset: every thread polls it beside its
    /// socket, so a stop ends each wait at once, whatever the peer does.
    package let stopSignal: WakeSignal
    /// Connection wakers (``BinaryConnectionHandler/waker``) that also carry the stop: a
    /// connection polls its waker instead of ``stopSignal``, so ``requestStop()`` raises them.
    private let stopWatchers = Lock<[ObjectIdentifier: WakeSignal]>([:])

    /// How the server's threads are started (tests give one that fails).
    package let threadStarter: ThreadStarter

    /// - Throws: `TLSError` when the stop signal's pipe cannot be made.
    package init(threadStarter: ThreadStarter = .system) throws(TLSError) {
        do throws(SystemCallError) {
            stopSignal = try WakeSignal()
        } catch {
            throw TLSError(error)
        }
        self.threadStarter = threadStarter
    }

    // MARK: Counters

    /// The connections closed by the server itself so far.
    package var counters: ServerCounters {
        counted.withLock { $0 }
    }

    /// Changes the counters and wakes the waiters.
    package func count(_ change: (inout ServerCounters) -> Void) {
        counted.withLock { change(&$0) }
        wakeWaiters()
    }

    /// Waits until `predicate` holds for the counters or `deadline` passes (or the server
    /// stops); returns whether it held.
    package func wait(until deadline: ContinuousClock.Instant, for predicate: (ServerCounters) -> Bool) -> Bool {
        waitForChange(until: deadline) { predicate(counters) }
    }

    // MARK: Stopping

    /// Whether ``requestStop()`` was called: every thread checks it after each wait.
    package var isStopping: Bool { stopping.load(ordering: .sequentiallyConsistent) }

    /// Asks every thread to finish: wakes the ones waiting on the condition, and raises
    /// ``stopSignal`` and the wakers given to ``watchStop(_:)``, ending every `poll()`.
    package func requestStop() {
        stopping.store(true, ordering: .sequentiallyConsistent)
        wakeWaiters(always: true)
        stopSignal.signal()
        for signal in stopWatchers.withLock({ Array($0.values) }) { signal.signal() }
    }

    /// Raises `signal` at the stop too, until ``unwatchStop(_:)``: for a thread that polls
    /// `signal` instead of ``stopSignal``. Check ``isStopping`` after calling it: a stop
    /// requested before is not signalled.
    package func watchStop(_ signal: WakeSignal) {
        stopWatchers.withLock { $0[ObjectIdentifier(signal)] = signal }
    }

    /// Stops raising a signal given to ``watchStop(_:)``.
    package func unwatchStop(_ signal: WakeSignal) {
        _ = stopWatchers.withLock { $0.removeValue(forKey: ObjectIdentifier(signal)) }
    }

    /// Waits until `deadline`, returning early (`false`) when the server stops. A
    /// condition wait, not a sleep: ``requestStop()`` ends it at once.
    package func pause(until deadline: ContinuousClock.Instant) -> Bool {
        !waitForChange(until: deadline) { isStopping }
    }

    // MARK: Threads

    /// Connection threads running or starting.
    package var connectionThreadCount: Int { connectionThreads.load(ordering: .sequentiallyConsistent) }

    /// Counts a connection thread about to start (``connectionThreadCount``).
    package func connectionStarting() {
        connectionThreads.add(1, ordering: .sequentiallyConsistent)
    }

    /// A connection thread ended (or never started).
    package func connectionEnded() {
        connectionThreads.subtract(1, ordering: .sequentiallyConsistent)
    }

    /// Counts a thread that is about to start.
    package func threadStarting() {
        liveThreads.withLock { $0 += 1 }
    }

    /// Counts a thread that has finished its work.
    package func threadFinished() {
        liveThreads.withLock { $0 -= 1 }
        wakeWaiters(always: true)
    }

    /// Waits until every counted thread has finished or `deadline` passes.
    package func waitForThreads(until deadline: ContinuousClock.Instant) -> Bool {
        waitForChange(until: deadline, ignoringStop: true) { liveThreads.withLock { $0 == 0 } }
    }

    // MARK: The condition

    /// Wakes the threads waiting in ``waitForChange(until:ignoringStop:countingAsWaiter:_:)``
    /// that counted themselves, or every waiter when `always`.
    package func wakeWaiters(always: Bool = false) {
        guard always || waiters.load(ordering: .sequentiallyConsistent) > 0 else { return }
        condition.lock()
        condition.broadcast()
        condition.unlock()
    }

    /// Waits on the condition until `satisfied()` or the deadline; a stop request ends the
    /// wait unless `ignoringStop`. Returns `satisfied()` as last seen.
    /// `countingAsWaiter: false` for waits whose wake-ups are arranged otherwise (the mock's
    /// record counts), so they do not make every change broadcast.
    package func waitForChange(
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
