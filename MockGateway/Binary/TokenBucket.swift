/// The budget of ``MockGateway/Faults/readRate``: `rate` tokens a second, one per
/// notification processed, of which at most `burst` can be saved up.
///
/// Pure arithmetic: it never reads a clock, every time is given, so tests drive it with
/// explicit instants. Kept as the instant at which the bucket is (or was) empty: the
/// tokens at `now` are the whole intervals elapsed since then, capped at `burst`.
package struct TokenBucket: Sendable {
    /// Tokens added a second.
    package let rate: Int
    /// The most tokens the bucket holds.
    package let burst: Int
    /// The time one token takes to arrive.
    private let interval: Duration
    private var emptyAt: ContinuousClock.Instant

    /// The burst ``MockGateway/Faults/readRate`` uses: 10 ms worth of tokens, at least 1,
    /// so a high rate is processed in batches rather than one notification per wake-up.
    package static func defaultBurst(rate: Int) -> Int {
        max(1, rate / 100)
    }

    /// The highest rate kept: one token a nanosecond. Beyond it the interval would round
    /// to nothing, and no gateway thread gets near it anyway.
    package static let maximumRate = 1_000_000_000

    /// A full bucket at `now`. A `rate` below 1 counts as 1 and one above ``maximumRate``
    /// as that; a `burst` below 1 counts as 1.
    package init(rate: Int, burst: Int? = nil, now: ContinuousClock.Instant) {
        self.rate = min(max(rate, 1), Self.maximumRate)
        self.burst = max(1, burst ?? Self.defaultBurst(rate: self.rate))
        interval = .seconds(1) / self.rate
        emptyAt = now - interval * self.burst
    }

    /// The tokens available at `now`.
    package func available(at now: ContinuousClock.Instant) -> Int {
        let elapsed = now - emptyAt
        guard elapsed >= interval else { return 0 }
        // Capped before converting, so a bucket left alone for hours cannot overflow.
        return min(burst, Int((min(elapsed, interval * burst) / interval).rounded(.down)))
    }

    /// Spends `count` tokens at `now` (at most ``available(at:)``).
    package mutating func take(_ count: Int, at now: ContinuousClock.Instant) {
        // Tokens beyond the burst are not saved: start from the fullest the bucket can be.
        emptyAt = max(emptyAt, now - interval * burst) + interval * count
    }

    /// When the next token is available, if none is at `now`; `now` when one is.
    package func nextToken(after now: ContinuousClock.Instant) -> ContinuousClock.Instant {
        max(now, emptyAt + interval)
    }
}
