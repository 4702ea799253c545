/// Turns running totals of refused connections into log lines, at most one per kind per
/// ``interval``: an attack of thousands of connections a second makes a line a second
/// saying how many, not thousands of lines (nor, as before, none). Each line counts what
/// happened since the kind's previous line, so the lines of a kind add up to its total.
///
/// Pure: it never reads a clock, every time is given (tests drive it with explicit
/// instants), and it is told totals, not events, so whoever feeds it may look at the
/// counters as seldom as it likes.
package struct RefusalLogLimiter: Sendable {
    /// The least time between two lines of one kind.
    package let interval: Duration
    /// The total of each kind already logged.
    private var logged: [ConnectionRefusal: Int] = [:]
    /// When each kind was last logged.
    private var lastLine: [ConnectionRefusal: ContinuousClock.Instant] = [:]

    /// A limiter allowing one line per kind per `interval` (a second by default).
    package init(interval: Duration = .seconds(1)) {
        self.interval = interval
    }

    /// The lines due at `now` given the `totals` counted so far: for each kind that grew
    /// since its last line, and whose last line is at least ``interval`` old (or that had
    /// none), how many are new. In ``ConnectionRefusal`` order.
    package mutating func lines(totals: [ConnectionRefusal: Int], at now: ContinuousClock.Instant)
        -> [(kind: ConnectionRefusal, count: Int)]
    {
        ConnectionRefusal.allCases.compactMap { kind in
            if let last = lastLine[kind], now - last < interval { return nil }
            guard let count = take(kind, totals: totals) else { return nil }
            lastLine[kind] = now
            return (kind, count)
        }
    }

    /// Every kind not logged yet, whatever the time: the last lines, when the counting is
    /// over (so the lines still add up to the totals).
    package mutating func remaining(totals: [ConnectionRefusal: Int]) -> [(kind: ConnectionRefusal, count: Int)] {
        ConnectionRefusal.allCases.compactMap { kind in take(kind, totals: totals).map { (kind, $0) } }
    }

    /// How many of `kind` are new in `totals`, now counted as logged; `nil` when none.
    private mutating func take(_ kind: ConnectionRefusal, totals: [ConnectionRefusal: Int]) -> Int? {
        let new = totals[kind, default: 0] - logged[kind, default: 0]
        guard new > 0 else { return nil }
        logged[kind] = totals[kind, default: 0]
        return new
    }
}
