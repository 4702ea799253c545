extension Duration {
    /// The duration in whole nanoseconds (rounded down), capped at 2³² seconds (136 years) so
    /// it fits an `Int`: for Dispatch's `.now() + .nanoseconds(…)`. Negative durations stay
    /// negative.
    package var wholeNanoseconds: Int {
        let (seconds, attoseconds) = components
        return Int(max(min(seconds, 1 << 32), -(1 << 32))) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
    }
}

extension Duration {
    /// The duration in whole milliseconds (rounded down): for timeouts C libraries take in
    /// milliseconds (SQLite's busy timeout, PostgreSQL's `lock_timeout`) and for printing.
    package var wholeMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}

extension Duration {
    /// The duration in seconds, as Foundation counts time (and Prometheus reports it).
    package var timeInterval: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}

extension ContinuousClock.Instant {
    /// Milliseconds from now to this instant, rounded up, clamped to 0…Int32.max: the
    /// timeout `poll()` takes for a wait until it.
    package var pollTimeout: Int32 {
        let remaining = self - ContinuousClock.now
        if remaining <= .zero { return 0 }
        let (seconds, attoseconds) = remaining.components
        let total = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(clamping: total)
    }
}
