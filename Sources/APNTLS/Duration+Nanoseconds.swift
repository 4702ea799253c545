extension Duration {
    /// The duration in whole nanoseconds (rounded down), capped at 2³² seconds (136 years) so
    /// it fits an `Int`: for Dispatch's `.now() + .nanoseconds(…)`. Negative durations stay
    /// negative.
    package var wholeNanoseconds: Int {
        let (seconds, attoseconds) = components
        return Int(max(min(seconds, 1 << 32), -(1 << 32))) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
    }
}
