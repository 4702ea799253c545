internal import Glibc

/// A pipe a blocking wait polls beside its socket, so another thread can end the
/// wait at once: a stop, a cancellation, a clock advance, a command for an I/O thread.
///
/// ``signal()`` makes it readable until ``reset()``; a signal that nobody resets stays
/// raised, which suits a stop every thread must see. One waiter should own the resets:
/// a reset by one thread can hide the signal from another polling the same descriptor.
/// Thread-safe.
package final class WakeSignal: Sendable {
    /// The descriptor to poll for reading (`POLLIN` while signalled): the pipe's read end.
    package let descriptor: Int32
    private let writeEnd: Int32

    /// A new, unsignalled signal.
    ///
    /// - Throws: ``SystemCallError`` with errno when the system has no descriptor to give.
    package init() throws(SystemCallError) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            throw SystemCallError("creating a wake-up pipe", errno: Glibc.errno)
        }
        for end in ends {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        descriptor = ends[0]
        writeEnd = ends[1]
    }

    deinit {
        close(descriptor)
        close(writeEnd)
    }

    /// Makes the descriptor readable (and keeps it so until ``reset()``). A full pipe
    /// already is, so a failed write is fine.
    package func signal() {
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }

    /// Consumes the pending signals.
    package func reset() {
        var scratch = (UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        while read(descriptor, &scratch, MemoryLayout.size(ofValue: scratch)) > 0 {}
    }

    /// Whether a signal is pending, without consuming it.
    package var isSignalled: Bool {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) > 0
    }
}

/// How a wait that also watches a ``WakeSignal`` ended.
package enum WaitResult: Sendable, Hashable {
    /// The socket is ready.
    case ready
    /// The signal was raised (it is not reset: that is the caller's choice).
    case signalled
    /// The deadline passed.
    case timedOut
}

/// What a blocking wait that watches a ``WakeSignal`` does next: asked before each `poll()`
/// and again after each wake-up (the signal, or the instant passing).
package enum WaitPlan: Sendable, Hashable {
    /// Poll the socket and the signal until this instant (`nil`: no limit).
    case waitUntil(ContinuousClock.Instant?)
    /// Stop waiting: the operation gives up with ``TLSError/Kind-swift.struct/timeout``.
    case giveUp
}
