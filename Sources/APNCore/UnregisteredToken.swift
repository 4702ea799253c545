public import Foundation

/// A device token Apple answered 410 for (`Unregistered`, `ExpiredToken`): the HTTP/2 era's
/// feedback tuple. ``Provider/Options/unregisteredTokens`` hands them to an
/// ``UnregisteredTokenRecorder``.
public struct UnregisteredToken: Sendable, Hashable, CustomStringConvertible {
    /// The device.
    public let device: Device
    /// Apple's `timestamp`: when it found the token no longer valid for the topic (the
    /// answer's time when Apple gave none), to the millisecond.
    public let timestamp: Date
    /// Apple's reason (`Unregistered`, `ExpiredToken`).
    public let reason: ProviderReason?

    /// Creates one; the provider makes them, tests may too.
    public init(device: Device, timestamp: Date, reason: ProviderReason? = nil) {
        self.device = device
        self.timestamp = timestamp
        self.reason = reason
    }

    /// ``timestamp`` as UNIX seconds, rounded down, as a feedback tuple's time: Apple's
    /// milliseconds divided by 1,000, as the bridge turns a 410 into a tuple.
    public var unixTime: Int64 {
        Int64((timestamp.timeIntervalSince1970 * 1_000).rounded()) / 1_000
    }

    /// `1700000000 a1b2…`: the feedback tuple's form. Tokens are the operator's data; log
    /// lines should not carry this.
    public var description: String { "\(unixTime) \(device)" }

    /// The feedback tuple this 410 says: the token, at ``unixTime`` (clamped to the tuple's
    /// 32 bits).
    public var feedbackEntry: FeedbackEntry {
        FeedbackEntry(unixTime: UInt32(clamping: unixTime), device: device)
    }
}

/// Something that takes the tokens Apple answered 410 for, with Apple's timestamps: the
/// token store of `APNFeedbackStore` (`TokenStore`), or your own database.
///
/// Called by ``UnregisteredTokenRecording`` on a queue of its own, one batch at a time, never
/// two at once and never on a provider's I/O thread: it may block (a transaction, a disk
/// write). A thrown error means the batch was not recorded (the recording keeps it).
public protocol UnregisteredTokenRecorder {
    /// Records `tokens` (a batch, in the order Apple answered) as no longer valid since each
    /// one's ``UnregisteredToken/timestamp``; throws when they could not be recorded.
    func record(_ tokens: [UnregisteredToken]) throws
}
