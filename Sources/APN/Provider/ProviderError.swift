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
    public let code: Code
    /// A sentence saying what happened.
    public let message: String
    /// The HTTP status Apple answered, when it answered.
    public let status: Int?
    /// Apple's reason, when it answered one.
    public let reason: ProviderReason?
    /// For 410 answers: when Apple last knew the token to be valid.
    public let timestamp: Date?
    /// The `apns-id` of the refused request, when Apple answered.
    public let apnsID: String?
    /// For ``Code/invalidNotification``: what is wrong with the notification.
    public let notificationError: APNError?
    /// Whether Apple may have received the notification all the same: it was written and no
    /// answer came (``Code/timedOut``, or ``Code/connectionFailed`` for a connection lost with
    /// its stream open). Such a notification is not sent again by the provider; sending it
    /// again yourself may deliver it twice.
    public let mayHaveBeenDelivered: Bool

    /// Creates an error; the library makes them, tests may too.
    public init(
        code: Code, message: String, status: Int? = nil, reason: ProviderReason? = nil, timestamp: Date? = nil,
        apnsID: String? = nil, notificationError: APNError? = nil, mayHaveBeenDelivered: Bool = false
    ) {
        self.mayHaveBeenDelivered = mayHaveBeenDelivered
        self.code = code
        self.message = message
        self.status = status
        self.reason = reason
        self.timestamp = timestamp
        self.apnsID = apnsID
        self.notificationError = notificationError
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
