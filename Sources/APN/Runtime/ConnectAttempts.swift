import APNSupport
import APNTLS
import Synchronization

/// The connection attempts under way for one I/O thread, each on a thread of its own, and
/// the waits they make: on the connection's clock (a ``ManualClock``'s advance wakes them)
/// and ended by ``stop()`` when the I/O thread ends, so no attempt outlives its connection
/// by more than a wake-up.
final class ConnectAttempts: Sendable {
    let clock: ConnectionClock
    /// The wake-up signals of the attempts under way; `nil` once stopped.
    private let signals = Lock<[ObjectIdentifier: WakeSignal]?>([:])

    init(clock: ConnectionClock) {
        self.clock = clock
    }

    /// One attempt's waits.
    struct Attempt {
        let attempts: ConnectAttempts
        /// Raised by ``ConnectAttempts/stop()`` and by the clock's advances.
        let wake: WakeSignal

        /// The time now on the connection's clock.
        func now() -> Timestamp { attempts.clock.now() }

        /// What a wait does next: resets the wake signal, then gives up once the attempts
        /// were stopped, `deadline` passed on the clock (`nil`: never) or `bound` in real
        /// time (`nil`: never); else waits until one of them could pass.
        func plan(until deadline: Timestamp?, bound: ContinuousClock.Instant? = nil) -> WaitPlan {
            wake.reset()
            let clock = attempts.clock
            guard !attempts.isStopped, !(deadline.map { clock.now() >= $0 } ?? false) else { return .giveUp }
            if let bound, ContinuousClock.now >= bound { return .giveUp }
            return .waitUntil([clock.systemDeadline(for: deadline), bound].compactMap { $0 }.min())
        }
    }

    /// Runs `body` as an attempt; a failure when the attempts were stopped or no wake-up
    /// signal could be made.
    func run<Success>(
        _ body: (Attempt) -> Result<Success, ClientConnector.Failure>
    ) -> Result<Success, ClientConnector.Failure> {
        let wake: WakeSignal
        do throws(SystemCallError) {
            wake = try WakeSignal()
        } catch {
            return .failure(.connect(TLSError(error)))
        }
        let key = ObjectIdentifier(wake)
        let running = signals.withLock { signals in
            signals?[key] = wake
            return signals != nil
        }
        guard running else { return .failure(.connect(TLSError(.timeout, "the connection has ended"))) }
        defer { _ = signals.withLock { $0?.removeValue(forKey: key) } }
        let observer = clock.manual?.observe { wake.signal() }
        defer { if let observer { clock.manual?.removeObserver(observer) } }
        return body(Attempt(attempts: self, wake: wake))
    }

    /// Ends every attempt under way and any started later, at once: the I/O thread has ended.
    func stop() {
        let raised = signals.withLock { signals in
            defer { signals = nil }
            return signals.map { Array($0.values) } ?? []
        }
        for signal in raised { signal.signal() }
    }

    private var isStopped: Bool { signals.withLock { $0 == nil } }
}
