import APNSupport
import Glibc
import Synchronization

/// The clock a ``Connection`` runs its timers on (backoff, grace window, idle timeout,
/// connect timeout), a ``Feedback`` poller its interval and its connect and read timeouts,
/// and a ``Provider`` its timeouts, backoffs and pings: the system's monotonic clock, or a
/// ``ManualClock`` a test advances.
public struct ConnectionClock: Sendable {
    let manual: ManualClock?

    /// The system's monotonic clock.
    public static let continuous = ConnectionClock(manual: nil)

    /// A clock that moves only when `clock` is advanced.
    public static func manual(_ clock: ManualClock) -> ConnectionClock {
        ConnectionClock(manual: clock)
    }

    /// Where the system clock's timestamps start: its reading when first used.
    private static let origin = MonotonicClock.nanoseconds()

    /// The time now on this clock.
    func now() -> Timestamp {
        if let manual { return Timestamp(nanoseconds: manual.now.nanosecondsSaturated) }
        // Read directly: the I/O thread reads the clock after every socket write, and
        // `ContinuousClock.now - origin` costs `Duration`'s 128-bit arithmetic each time.
        return Timestamp(nanoseconds: MonotonicClock.nanoseconds() &- Self.origin)
    }

    /// Where a `poll()` on the system clock must end for `deadline` on this clock to be
    /// noticed: `nil` for no deadline, or for a manual clock — its advances wake the waiter
    /// (``ManualClock/observe(_:)``) instead.
    func systemDeadline(for deadline: Timestamp?) -> ContinuousClock.Instant? {
        guard manual == nil, let deadline else { return nil }
        return .now + .nanoseconds(max(0, deadline.nanoseconds &- now().nanoseconds))
    }
}

/// A clock for tests: time stands still until ``advance(by:)``, which wakes every
/// connection and feedback visit using it so their timers and timeouts (connect, read)
/// fire at once. The gateway's TCP
/// acknowledgements arrive in real time: a notification's grace window starts when its
/// acknowledgement is seen (at the clock's time then), so let the gateway receive what was
/// sent before advancing past the window.
public final class ManualClock: Sendable {
    private struct State {
        var now: Duration = .zero
        var observers: [Int: @Sendable () -> Void] = [:]
        var nextObserver = 0
    }

    private let state = Lock(State())

    /// A clock at zero.
    public init() {}

    /// The time since the clock was created, as advanced so far.
    public var now: Duration { state.withLock { $0.now } }

    /// Moves the clock forward and wakes the connections that use it.
    public func advance(by duration: Duration) {
        let observers = state.withLock { state in
            state.now += duration
            return Array(state.observers.values)
        }
        for observer in observers { observer() }
    }

    /// Calls `observer` after every advance, until removed.
    func observe(_ observer: @escaping @Sendable () -> Void) -> Int {
        state.withLock { state in
            state.nextObserver += 1
            state.observers[state.nextObserver] = observer
            return state.nextObserver
        }
    }

    func removeObserver(_ id: Int) {
        _ = state.withLock { $0.observers.removeValue(forKey: id) }
    }
}
