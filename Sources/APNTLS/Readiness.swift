internal import Glibc

/// What to wait for on a socket.
public enum Readiness: Sendable, Hashable {
    /// Data (or EOF, or an error) can be read.
    case readable
    /// Data can be written (or a connect finished).
    case writable

    var pollEvents: Int16 {
        switch self {
        case .readable: Int16(POLLIN)
        case .writable: Int16(POLLOUT)
        }
    }
}

/// `poll()` with a deadline, retried on EINTR.
enum Poller {
    /// Waits until `descriptor` is ready for `readiness` or `deadline` passes.
    ///
    /// - Returns: `true` when ready (including error and hang-up conditions, which the next
    ///   I/O call reports), `false` when the deadline passed.
    static func wait(
        _ descriptor: Int32, for readiness: Readiness, deadline: ContinuousClock.Instant
    ) throws(TLSError) -> Bool {
        try wait(descriptor, events: readiness.pollEvents, deadline: deadline)
    }

    /// Waits until `descriptor` has one of `events` (`POLLIN`, `POLLOUT`, or both; none
    /// waits out the time) or `deadline` passes.
    static func wait(_ descriptor: Int32, events: Int16, deadline: ContinuousClock.Instant) throws(TLSError) -> Bool {
        var entry = pollfd(fd: descriptor, events: events, revents: 0)
        while true {
            let result = poll(&entry, 1, milliseconds(until: deadline))
            if result > 0 { return true }
            if result == 0 {
                if ContinuousClock.now >= deadline { return false }
                continue
            }
            let code = currentErrno
            if code != EINTR { throw TLSError(.timeout, "waiting for the socket", errno: code) }
        }
    }

    /// Milliseconds from now to `deadline`, rounded up, clamped to 0…Int32.max.
    static func milliseconds(until deadline: ContinuousClock.Instant) -> Int32 {
        let remaining = deadline - ContinuousClock.now
        if remaining <= .zero { return 0 }
        let (seconds, attoseconds) = remaining.components
        let total = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(clamping: total)
    }
}
