public import Foundation

/// Why a notification sent through a ``Provider`` was not delivered.
///
/// A struct rather than an enum, so that new kinds can be added without breaking code that
/// switches over them: compare ``code`` with the `static let` values of ``Code``. Apple's
/// refusals carry the HTTP ``status``, the typed ``reason`` and, for 410, the
/// ``timestamp``; local refusals carry the ``APNError`` that says what is wrong.
public struct ProviderError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of failure this is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: Hashable, Sendable {
            case rejected, invalidNotification, timedOut, connectionFailed, protocolError, shutDown, cancelled
            case retriesExhausted, authentication
        }

        private let base: Base

        private init(_ base: Base) {
            self.base = base
        }

        /// Apple answered with a status other than 200; ``ProviderError/reason`` says why.
        public static let rejected = Code(.rejected)
        /// The notification cannot be sent as it is (payload too large, a header value out
        /// of range, a missing topic); nothing was sent. ``ProviderError/notificationError``
        /// says what.
        public static let invalidNotification = Code(.invalidNotification)
        /// No response came within ``Provider/Options/requestTimeout``. The request may or
        /// may not have been processed; it is not sent again.
        public static let timedOut = Code(.timedOut)
        /// No connection could be made (TCP, TLS, ALPN), so the request was never sent; or
        /// the connection was lost with the request's stream open, so it may have been
        /// delivered — it is not sent again, and resending it may duplicate it. The
        /// ``ProviderResponse/attempts`` and the message say which.
        public static let connectionFailed = Code(.connectionFailed)
        /// The server broke the HTTP/2 protocol or answered something unreadable.
        public static let protocolError = Code(.protocolError)
        /// The provider was closed before the request could be sent.
        public static let shutDown = Code(.shutDown)
        /// The task awaiting the result was cancelled; the request, if already written, is
        /// not recalled.
        public static let cancelled = Code(.cancelled)
        /// Apple kept answering a status worth retrying (429, 5xx) or kept refusing
        /// the stream; the last answer is in ``ProviderError/status`` and
        /// ``ProviderError/reason``.
        public static let retriesExhausted = Code(.retriesExhausted)
        /// The provider token could not be made (an unreadable `.p8` key, a key that is not
        /// EC P-256), or the client certificate could not be loaded.
        public static let authentication = Code(.authentication)

        /// The code's name.
        public var description: String {
            switch base {
            case .rejected: "rejected"
            case .invalidNotification: "invalidNotification"
            case .timedOut: "timedOut"
            case .connectionFailed: "connectionFailed"
            case .protocolError: "protocolError"
            case .shutDown: "shutDown"
            case .cancelled: "cancelled"
            case .retriesExhausted: "retriesExhausted"
            case .authentication: "authentication"
            }
        }
    }

    /// What kind of failure this is.
    public var code: Code { storage.code }
    /// A sentence saying what happened.
    public var message: String { storage.message }
    /// The HTTP status Apple answered, when it answered.
    public var status: Int? { storage.status }
    /// Apple's reason, when it answered one.
    public var reason: ProviderReason? { storage.reason }
    /// For 410 answers: when Apple last knew the token to be valid.
    public var timestamp: Date? { storage.timestamp }
    /// The `apns-id` of the refused request, when Apple answered.
    public var apnsID: UUID? { storage.apnsID }
    /// The `apns-request-id` Apple answered to a broadcast or a channel management request
    /// (``BroadcastChannels``, ``Provider/broadcast(_:to:bundleID:)``): quote it to Apple.
    public var requestID: UUID? { storage.requestID }
    /// For ``Code/invalidNotification``: what is wrong with the notification.
    public var notificationError: APNError? { storage.notificationError }
    /// Whether Apple may have received the notification all the same: it was written and no
    /// answer came (``Code/timedOut``, or ``Code/connectionFailed`` for a connection lost with
    /// its stream open). Such a notification is not sent again by the provider; sending it
    /// again yourself may deliver it twice.
    public var mayHaveBeenDelivered: Bool { storage.mayHaveBeenDelivered }

    /// The fields, in one shared, immutable box: an error travels inside every
    /// ``ProviderResponse`` (an `Optional` of it), and a pointer copies for a retain where
    /// eight fields would copy for eight and a memcpy at every hop.
    private let storage: Storage

    private final class Storage: Sendable, Hashable {
        let code: Code
        let message: String
        let status: Int?
        let reason: ProviderReason?
        let timestamp: Date?
        let apnsID: UUID?
        let requestID: UUID?
        let notificationError: APNError?
        let mayHaveBeenDelivered: Bool

        init(
            code: Code, message: String, status: Int?, reason: ProviderReason?, timestamp: Date?, apnsID: UUID?,
            requestID: UUID?, notificationError: APNError?, mayHaveBeenDelivered: Bool
        ) {
            self.code = code
            self.message = message
            self.status = status
            self.reason = reason
            self.timestamp = timestamp
            self.apnsID = apnsID
            self.requestID = requestID
            self.notificationError = notificationError
            self.mayHaveBeenDelivered = mayHaveBeenDelivered
        }

        static func == (lhs: Storage, rhs: Storage) -> Bool {
            lhs === rhs
                || (lhs.code == rhs.code && lhs.message == rhs.message && lhs.status == rhs.status
                    && lhs.reason == rhs.reason && lhs.timestamp == rhs.timestamp && lhs.apnsID == rhs.apnsID
                    && lhs.requestID == rhs.requestID && lhs.notificationError == rhs.notificationError
                    && lhs.mayHaveBeenDelivered == rhs.mayHaveBeenDelivered)
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(code)
            hasher.combine(message)
            hasher.combine(status)
            hasher.combine(reason)
            hasher.combine(timestamp)
            hasher.combine(apnsID)
            hasher.combine(requestID)
            hasher.combine(notificationError)
            hasher.combine(mayHaveBeenDelivered)
        }
    }

    /// Creates an error; the library makes them, tests may too.
    public init(
        code: Code, message: String, status: Int? = nil, reason: ProviderReason? = nil, timestamp: Date? = nil,
        apnsID: UUID? = nil, requestID: UUID? = nil, notificationError: APNError? = nil,
        mayHaveBeenDelivered: Bool = false
    ) {
        storage = Storage(
            code: code, message: message, status: status, reason: reason, timestamp: timestamp, apnsID: apnsID,
            requestID: requestID, notificationError: notificationError, mayHaveBeenDelivered: mayHaveBeenDelivered)
    }

    /// `code: message`, with the status and reason when Apple answered.
    public var description: String {
        var text = "\(code): \(message)"
        if let status { text += " (status \(status)\(reason.map { ", \($0)" } ?? ""))" }
        return text
    }

    static func invalid(_ error: APNError) -> ProviderError {
        ProviderError(code: .invalidNotification, message: error.message, notificationError: error)
    }
}
