public import Foundation

/// Apple's answer to a broadcast accepted (``Provider/broadcast(_:to:bundleID:)``); a
/// refusal is thrown as a ``ProviderError``.
public struct BroadcastResponse: Sendable, CustomStringConvertible {
    /// The channel broadcast to.
    public let channel: BroadcastChannel
    /// The HTTP status: 200.
    public let status: Int
    /// `apns-request-id`: the request's own (``Notification/apnsID``) or the one Apple made.
    public let requestID: UUID?
    /// `apns-unique-id`: Apple's id for the message, to quote to Apple and to look it up in
    /// the Push Notification Console's delivery log.
    public let uniqueID: String?
    /// How many times the request was sent (retries after 429 or 5xx count).
    public let attempts: Int

    /// Creates a response; the library makes them, tests may too.
    public init(channel: BroadcastChannel, status: Int, requestID: UUID?, uniqueID: String?, attempts: Int) {
        self.channel = channel
        self.status = status
        self.requestID = requestID
        self.uniqueID = uniqueID
        self.attempts = attempts
    }

    /// `channel: status unique-id`.
    public var description: String {
        "\(channel.id): \(status) \(uniqueID ?? "")"
    }
}
