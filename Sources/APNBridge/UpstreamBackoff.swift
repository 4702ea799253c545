/// Whether the bridge reads a tenant's client connections, after its upstream failed (its
/// credentials or topic refused, or Apple unavailable after retries: status 10).
///
/// A binary client answered status 10 reconnects and resends at once; reading it while
/// upstream still fails would only repeat the failure, a resend storm. So after a failure
/// the tenant's connections — new ones included — are held, reading nothing, for a backoff
/// that doubles with each failure in a row (1 s, 2 s, 4 s … up to ``maximum``), and the
/// first success upstream ends it. Held, not closed: a client writes as soon as its
/// handshake is done, and what it wrote before a close would be of unknown fate. Pure: time comes
/// in as a value (the driver's clock), so the schedule is tested without waiting.
package struct UpstreamBackoff: Sendable, Hashable {
    /// The first backoff.
    package let initial: Duration
    /// The longest.
    package let maximum: Duration
    /// Failures in a row since the last success.
    package private(set) var failures = 0
    /// Until when new connections are refused; `nil` when they are taken.
    package private(set) var refusingUntil: Duration?

    /// A backoff starting at `initial` (1 s) and doubling up to `maximum` (60 s).
    package init(initial: Duration = .seconds(1), maximum: Duration = .seconds(60)) {
        self.initial = initial
        self.maximum = maximum
    }

    /// Upstream failed at `now`: refuse new connections for the next backoff. Failures
    /// reported while already refusing (the other connections of the same outage) do not
    /// lengthen it again.
    package mutating func failed(at now: Duration) {
        if let until = refusingUntil, now < until { return }
        var backoff = initial
        for _ in 0..<min(failures, 32) where backoff < maximum { backoff = backoff * 2 }
        refusingUntil = now + min(backoff, maximum)
        failures += 1
    }

    /// Upstream answered a notification: take connections again, from the first backoff.
    package mutating func succeeded() {
        failures = 0
        refusingUntil = nil
    }

    /// Until when connections are held at `now`; nil when they are served.
    package func holding(at now: Duration) -> Duration? {
        guard let until = refusingUntil, now < until else { return nil }
        return until
    }

    /// Whether a connection arriving at `now` is served.
    package func admits(at now: Duration) -> Bool {
        holding(at: now) == nil
    }
}
