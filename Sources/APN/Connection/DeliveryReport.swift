/// What became of the notifications whose outcomes arrived since the previous report (or
/// since the connection was created): returned by ``Connection/flush(confirm:)`` and
/// ``Connection/shutdown()``.
public struct DeliveryReport: Sendable, CustomStringConvertible {
    /// Accepted by the gateway (by any evidence).
    public var accepted = 0
    /// Of ``accepted``, those possibly delivered twice (resent without proof the first
    /// copy was dropped).
    public var possiblyDuplicated = 0
    /// Refused by the gateway with an error response.
    public var rejected = 0
    /// Not delivered, for a local reason (validation, retry limits, termination).
    public var failed = 0
    /// Fate unknown (evicted from the cache, unconfirmed at a silent close).
    public var unknownFate = 0
    /// Times a notification was queued to be written again (after an error response named
    /// an earlier one, or a silent close under the resend policy) in the same period.
    public var resent = 0
    /// Every notification not accepted, with its device and outcome, in outcome order.
    public var notAccepted: [Undelivered] = []
    /// For a confirmed flush: whether the gateway answered every socket's marker frame, so
    /// the acceptances are proven rather than inferred from the grace window.
    public var confirmed = false

    /// Creates an empty report.
    public init() {}

    /// Notifications counted: accepted, rejected, failed and unknown fate.
    public var total: Int { accepted + rejected + failed + unknownFate }

    /// One notification that was not accepted.
    public struct Undelivered: Sendable {
        /// The notification.
        public let notification: Notification
        /// The device it was for.
        public let device: Device?
        /// Why it was not accepted.
        public let outcome: NotificationOutcome
    }

    /// Counts one outcome.
    mutating func record(_ outcome: NotificationOutcome, notification: Notification, device: Device?) {
        switch outcome {
        case .accepted(let acceptance):
            accepted += 1
            if acceptance.possiblyDuplicated { possiblyDuplicated += 1 }
            return
        case .rejected: rejected += 1
        case .failed: failed += 1
        case .unknownFate: unknownFate += 1
        }
        notAccepted.append(Undelivered(notification: notification, device: device, outcome: outcome))
    }

    /// Adds the counts and the notifications of `other` (a report nobody received), keeping
    /// this one's ``confirmed``: the pool's carry-over, and `apn demo`'s running total.
    package mutating func add(_ other: DeliveryReport) {
        accepted += other.accepted
        possiblyDuplicated += other.possiblyDuplicated
        rejected += other.rejected
        failed += other.failed
        unknownFate += other.unknownFate
        resent += other.resent
        notAccepted += other.notAccepted
    }

    /// `accepted 10, rejected 1, failed 0, unknown fate 0 (confirmed)`.
    public var description: String {
        "accepted \(accepted), rejected \(rejected), failed \(failed), unknown fate \(unknownFate)"
            + (confirmed ? " (confirmed)" : "")
    }
}
