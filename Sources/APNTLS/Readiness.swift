import APNSupport
internal import Glibc

/// What to wait for on a socket.
package enum Readiness: Sendable, Hashable {
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
            let result = poll(&entry, 1, deadline.pollTimeout)
            if result > 0 { return true }
            if result == 0 {
                if ContinuousClock.now >= deadline { return false }
                continue
            }
            let code = currentErrno
            if code != EINTR { throw TLSError(.timeout, "waiting for the socket", errno: code) }
        }
    }

    /// Waits until `descriptor` has one of `events` (none: only the signal and the time
    /// count), `signal` is raised, or `deadline` passes (`nil`: no deadline). The socket
    /// wins when both are ready.
    static func wait(
        _ descriptor: Int32, events: Int16, deadline: ContinuousClock.Instant?, orSignal signal: WakeSignal
    ) throws(TLSError) -> WaitResult {
        var entries = (pollfd(fd: descriptor, events: events, revents: 0), pollfd(fd: signal.descriptor, events: Int16(POLLIN), revents: 0))
        while true {
            let timeout = deadline.map(\.pollTimeout) ?? -1
            let result = withUnsafeMutableBytes(of: &entries) { bytes in
                poll(bytes.baseAddress!.assumingMemoryBound(to: pollfd.self), 2, timeout)
            }
            if result > 0 {
                return entries.0.revents != 0 ? .ready : .signalled
            }
            if result == 0 {
                if let deadline, ContinuousClock.now >= deadline { return .timedOut }
                continue
            }
            let code = currentErrno
            if code != EINTR { throw TLSError(.timeout, "waiting for the socket", errno: code) }
        }
    }

    /// Waits until `descriptor` has one of `events`, asking `plan` before each `poll()`
    /// (with `signal`) how long to wait and whether to go on; `false` when it gave up.
    static func wait(
        _ descriptor: Int32, events: Int16, orSignal signal: WakeSignal, plan: () -> WaitPlan
    ) throws(TLSError) -> Bool {
        while true {
            guard case .waitUntil(let deadline) = plan() else { return false }
            if try wait(descriptor, events: events, deadline: deadline, orSignal: signal) == .ready { return true }
        }
    }
}
