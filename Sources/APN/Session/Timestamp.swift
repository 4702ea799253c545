/// A point on the session's clock, in nanoseconds from an origin the driver chooses.
///
/// The gateway session has no clock of its own: every input carries the time, so tests and
/// simulations drive time explicitly and the I/O driver maps its monotonic clock onto this.
package struct Timestamp: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Nanoseconds since the driver's origin.
    package var nanoseconds: Int64

    package init(nanoseconds: Int64) {
        self.nanoseconds = nanoseconds
    }

    package static let zero = Timestamp(nanoseconds: 0)

    package static func seconds(_ seconds: Double) -> Timestamp {
        Timestamp(nanoseconds: Int64(seconds * 1e9))
    }

    package static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
        lhs.nanoseconds < rhs.nanoseconds
    }

    package static func + (lhs: Timestamp, rhs: Duration) -> Timestamp {
        lhs.adding(nanoseconds: rhs.nanosecondsSaturated)
    }

    /// This time plus `nanoseconds`, without going through `Duration`; saturating, so a
    /// huge timeout means "never" rather than wrapping into the past.
    package func adding(nanoseconds: Int64) -> Timestamp {
        let (sum, overflow) = self.nanoseconds.addingReportingOverflow(nanoseconds)
        if overflow { return Timestamp(nanoseconds: nanoseconds > 0 ? .max : .min) }
        return Timestamp(nanoseconds: sum)
    }

    package static func - (lhs: Timestamp, rhs: Timestamp) -> Duration {
        .nanoseconds(lhs.nanoseconds &- rhs.nanoseconds)
    }

    package var description: String {
        "t=\(Double(nanoseconds) / 1e9)s"
    }
}

extension Duration {
    /// The duration in whole nanoseconds, clamped to `Int64`.
    var nanosecondsSaturated: Int64 {
        let (seconds, attoseconds) = components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return seconds < 0 ? .min : .max }
        return scaled.addingReportingOverflow(attoseconds / 1_000_000_000).partialValue
    }
}
