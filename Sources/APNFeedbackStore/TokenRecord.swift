public import APNCore

/// A registered device token as the store holds it.
public struct TokenRecord: Hashable, Sendable {
    /// The device.
    public let device: Device
    /// The app's topic (bundle identifier) the token was registered for, if given.
    public let topic: String?
    /// When the app last registered the token, as UNIX seconds.
    public let registeredAt: Int64
    /// Whether notifications should still be sent to it.
    public let isActive: Bool
    /// When it was deactivated (by feedback or unregistration), as UNIX seconds.
    public let deactivatedAt: Int64?
    /// The latest feedback time the service reported for it, as UNIX seconds.
    public let lastFeedbackAt: Int64?
}

/// What applying one batch of feedback did.
public struct FeedbackApplication: Hashable, Sendable, CustomStringConvertible {
    /// Tuples read (the batch's size).
    public var read = 0
    /// Tokens deactivated: the feedback time was at or after their last registration.
    public var deactivated = 0
    /// Tokens kept active: re-registered after the feedback time (Apple's rule).
    public var kept = 0
    /// Tuples naming tokens the store does not know (recorded, nothing deactivated).
    public var unknown = 0
    /// Tuples already applied before (the same token and time): nothing changed.
    public var duplicates = 0

    /// Creates an empty summary.
    public init() {}

    /// The counts, e.g. `read 3: deactivated 1, kept 1, unknown 1, duplicates 0`.
    public var description: String {
        "read \(read): deactivated \(deactivated), kept \(kept), unknown \(unknown), duplicates \(duplicates)"
    }
}

/// One feedback tuple the store received, and what applying it did.
public struct FeedbackRecord: Hashable, Sendable {
    /// What applying a tuple did.
    public enum Outcome: String, Hashable, Sendable {
        /// The token was deactivated: the feedback time was at or after its registration.
        case deactivated
        /// The token was kept: the app registered it again after the feedback time.
        case kept
        /// The store did not know the token.
        case unknown
    }

    /// The device the service named.
    public let device: Device
    /// The tuple's time, as UNIX seconds.
    public let time: Int64
    /// When it was read and applied, as UNIX seconds.
    public let readAt: Int64
    /// What applying it did.
    public let outcome: Outcome
}
