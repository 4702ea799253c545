internal import Glibc

extension WakeSignal {
    /// Waits until the signal is raised or `deadline` passes (`nil`: no deadline), with
    /// `poll()`: a pause another thread can end at once, with no socket to watch. The
    /// signal is left raised.
    ///
    /// - Returns: whether it was raised; `false` when the deadline passed or `poll()` failed.
    package func wait(until deadline: ContinuousClock.Instant?) -> Bool {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        while true {
            let result = poll(&entry, 1, deadline.map(\.pollTimeout) ?? -1)
            if result > 0 { return true }
            if result == 0 {
                if let deadline, ContinuousClock.now >= deadline { return false }
                continue
            }
            if Glibc.errno != EINTR { return false }
        }
    }
}
