#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The system's monotonic clock in nanoseconds, read directly: for what is read once a
/// request or an answer. `ContinuousClock.now` and the `Duration` arithmetic after it
/// (128-bit; its `components` a 128-bit division) cost several times the clock read.
package enum MonotonicClock {
    /// `CLOCK_MONOTONIC` now, in nanoseconds.
    @inline(__always)
    package static func nanoseconds() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Int64(spec.tv_sec) &* 1_000_000_000 &+ Int64(spec.tv_nsec)
    }

    /// The seconds from `start` (a reading of ``nanoseconds()``) to now.
    package static func secondsSince(_ start: Int64) -> Double {
        Double(nanoseconds() &- start) / 1e9
    }
}
