public import APNWire

/// An error raised by swift-apn.
///
/// A struct rather than an enum, so that new kinds of error can be added without breaking
/// code that switches over them: compare ``code`` with the `static let` values of
/// ``APNError/Code``. Every error carries an actionable ``message`` and, when the problem
/// is one Apple's gateway would also have rejected, the ``status`` it would have answered.
public struct APNError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of error this is. Compare with the `static let` values, e.g.
    /// `error.code == .payloadTooLarge`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: Hashable, Sendable {
            case invalidToken
            case payloadTooLarge
            case reservedPayloadKey
            case invalidValue
            case invalidJSON
            case connectionFailed
            case connectionClosed
            case refusedByGateway
            case connectTimeout
            case credentials
            case malformedResponse
            case retryLimitExceeded
            case initialisationFailed
            case connectionRetryLimitExceeded
            case connectionTerminated
            case notResent
            case missingDevice
            case shutDown
            case unsupportedByFormat
        }

        private let base: Base

        private init(_ base: Base) {
            self.base = base
        }

        /// The device token is unusable: empty, an odd number of hex digits, or (while
        /// length validation is on) not 32 bytes long. Maps to status 8 (invalid token).
        public static let invalidToken = Code(.invalidToken)
        /// The compiled payload is longer than the command allows. Maps to status 7
        /// (invalid payload size); ``APNError/size`` and ``APNError/limit`` say by how much.
        public static let payloadTooLarge = Code(.payloadTooLarge)
        /// The custom payload key `aps` holds something other than an object (or `null`), so
        /// the notification's own aps keys cannot be merged into it.
        public static let reservedPayloadKey = Code(.reservedPayloadKey)
        /// A value is outside the range the protocol can carry.
        public static let invalidValue = Code(.invalidValue)
        /// Payload JSON text could not be read; ``APNError/jsonParseError`` says what and
        /// at which byte.
        public static let invalidJSON = Code(.invalidJSON)

        /// A connection attempt or an established connection failed (socket or TLS error).
        public static let connectionFailed = Code(.connectionFailed)
        /// The gateway closed the connection without an error response.
        public static let connectionClosed = Code(.connectionClosed)
        /// The gateway's TLS refused the client certificate with an alert after the
        /// handshake (a TLS 1.3 gateway): it processed nothing sent.
        public static let refusedByGateway = Code(.refusedByGateway)
        /// A connection attempt took longer than `connectTimeout`.
        public static let connectTimeout = Code(.connectTimeout)
        /// The client certificate or key could not be used. Not retried: see
        /// ``initialisationFailed``.
        public static let credentials = Code(.credentials)
        /// The gateway sent bytes that are not an error response.
        public static let malformedResponse = Code(.malformedResponse)
        /// 512: the notification was resent as often as its `retryLimit` allows.
        public static let retryLimitExceeded = Code(.retryLimitExceeded)
        /// 513: the connection could not start (bad credentials); nothing was sent.
        public static let initialisationFailed = Code(.initialisationFailed)
        /// 514: connecting failed more often than `connectionRetryLimit` allows.
        public static let connectionRetryLimitExceeded = Code(.connectionRetryLimitExceeded)
        /// 515: the connection was terminated before this notification was pushed.
        public static let connectionTerminated = Code(.connectionTerminated)
        /// Not resent after an earlier notification was rejected, because
        /// `buffersNotifications` is off; the gateway discarded it.
        public static let notResent = Code(.notResent)
        /// A notification was pushed without a device. Maps to status 2 (missing device
        /// token).
        public static let missingDevice = Code(.missingDevice)
        /// 515: pushed after ``Connection/shutdown()`` was called.
        public static let shutDown = Code(.shutDown)
        /// The notification asks for what the connection's format cannot carry: a priority
        /// other than 10 with command 0 or 1, or an expiry with command 0. Refused rather
        /// than sent without it; use ``Command/frame`` (command 2).
        public static let unsupportedByFormat = Code(.unsupportedByFormat)

        /// The code's name, e.g. `payloadTooLarge`.
        public var description: String {
            switch base {
            case .invalidToken: "invalidToken"
            case .payloadTooLarge: "payloadTooLarge"
            case .reservedPayloadKey: "reservedPayloadKey"
            case .invalidValue: "invalidValue"
            case .invalidJSON: "invalidJSON"
            case .connectionFailed: "connectionFailed"
            case .connectionClosed: "connectionClosed"
            case .refusedByGateway: "refusedByGateway"
            case .connectTimeout: "connectTimeout"
            case .credentials: "credentials"
            case .malformedResponse: "malformedResponse"
            case .retryLimitExceeded: "retryLimitExceeded"
            case .initialisationFailed: "initialisationFailed"
            case .connectionRetryLimitExceeded: "connectionRetryLimitExceeded"
            case .connectionTerminated: "connectionTerminated"
            case .notResent: "notResent"
            case .missingDevice: "missingDevice"
            case .shutDown: "shutDown"
            case .unsupportedByFormat: "unsupportedByFormat"
            }
        }
    }

    /// What kind of error this is.
    public let code: Code
    /// What went wrong and what to do about it, in one sentence.
    public let message: String
    /// The status Apple's gateway answers for the same problem (8 for a bad token, 7 for a
    /// payload that is too large), or `nil` when the gateway has no matching status.
    public let status: StatusCode?
    /// For ``Code/payloadTooLarge``: the payload's size in bytes, in its encoding.
    public let size: Int?
    /// For ``Code/payloadTooLarge``: the limit the payload exceeded, in bytes.
    public let limit: Int?
    /// For ``Code/invalidJSON``: what is wrong with the text and the byte offset.
    public let jsonParseError: JSONParseError?

    /// Creates an error. Library code uses the factories below; this initialiser exists so
    /// that tests and adapters can build any error value.
    public init(
        code: Code,
        message: String,
        status: StatusCode? = nil,
        size: Int? = nil,
        limit: Int? = nil,
        jsonParseError: JSONParseError? = nil
    ) {
        self.code = code
        self.message = message
        self.status = status
        self.size = size
        self.limit = limit
        self.jsonParseError = jsonParseError
    }

    /// `invalidToken: device token must be 32 bytes, got 31 (…)`.
    public var description: String {
        "\(code): \(message)"
    }
}

extension APNError {
    static func invalidToken(_ message: String) -> APNError {
        APNError(code: .invalidToken, message: message, status: .invalidToken)
    }

    package static func payloadTooLarge(size: Int, limit: Int, encoding: String, context: String) -> APNError {
        APNError(
            code: .payloadTooLarge,
            message: "payload is \(size) bytes in \(encoding), over the \(limit)-byte limit of \(context) "
                + "(shorten it, or call trim(toLength: \(limit)) to shorten the alert text)",
            status: .invalidPayloadSize,
            size: size,
            limit: limit
        )
    }

    static func reservedPayloadKey(_ key: String, found kind: String) -> APNError {
        APNError(
            code: .reservedPayloadKey,
            message: "custom payload key \"\(key)\" must be a JSON object (or null), not \(kind); "
                + "the notification's badge, sound, alert and other aps keys are merged into it"
        )
    }

    package static func unsupportedByFormat(_ what: String, format: String) -> APNError {
        APNError(
            code: .unsupportedByFormat,
            message: "\(what) cannot be carried by \(format); refused rather than sent without it "
                + "(use Connection.Options.format = .frame, command 2)")
    }

    package static func invalidValue(_ message: String) -> APNError {
        APNError(code: .invalidValue, message: message)
    }

    static func invalidJSON(_ error: JSONParseError) -> APNError {
        APNError(code: .invalidJSON, message: "payload JSON: \(error)", jsonParseError: error)
    }
}

// Connection and delivery errors, raised by the gateway session.
extension APNError {
    package static func connectionClosed() -> APNError {
        APNError(code: .connectionClosed, message: "the gateway closed the connection without an error response")
    }

    package static func unusableAfterConnect(_ cause: APNError?) -> APNError {
        APNError(
            code: .connectionFailed,
            message: "socket unusable after connection (closed within the settle window"
                + (cause.map { ": \($0.message)" } ?? "")
                + "). Hint: the gateway may refuse the certificate, or it is for the other environment")
    }

    package static func connectTimeout(_ timeout: Duration, underlying: APNError) -> APNError {
        APNError(code: .connectTimeout, message: "no connection within \(timeout) (\(underlying.message))")
    }

    package static func malformedResponse(_ error: WireError) -> APNError {
        APNError(code: .malformedResponse, message: "the gateway sent something other than an error response: \(error)")
    }

    /// The feedback service sent bytes that are not feedback tuples: for a token length
    /// outside the decoder's bounds, what the tuple announced and the limit it passed.
    package static func malformedFeedback(_ error: WireError) -> APNError {
        let message: String
        if error.code == .tokenLength {
            message = "the feedback service sent a tuple whose token length is \(error.value) bytes, outside "
                + "1...\(error.limit ?? 0) (Feedback.Options.maxTokenLength); the rest of its stream cannot be read"
        } else {
            message = "the feedback service sent something other than feedback tuples: \(error)"
        }
        return APNError(code: .malformedResponse, message: message)
    }

    package static func retryLimitExceeded() -> APNError {
        APNError(
            code: .retryLimitExceeded,
            message: "resent as often as the notification's retryLimit allows",
            status: .retryLimitExceeded)
    }

    package static func initialisationFailed(_ cause: APNError) -> APNError {
        APNError(
            code: .initialisationFailed,
            message: "credentials unusable, nothing will be sent: \(cause.message)",
            status: .moduleInitialisationFailed)
    }

    package static func connectionRetryLimitExceeded(attempts: Int, last: APNError) -> APNError {
        APNError(
            code: .connectionRetryLimitExceeded,
            message: "gave up after \(attempts) failed connection attempts; the last: \(last.message)",
            status: .connectionRetryLimitExceeded)
    }

    package static func connectionTerminated() -> APNError {
        APNError(
            code: .connectionTerminated,
            message: "the connection was terminated (credentials or retry limit); create a new one",
            status: .connectionTerminated)
    }

    package static func missingDevice() -> APNError {
        APNError(
            code: .missingDevice, message: "no device to send to: pass one to push, or set the notification's device",
            status: .missingDeviceToken)
    }

    package static func shutDown() -> APNError {
        APNError(
            code: .shutDown, message: "pushed after shutdown() was called; create a new connection",
            status: .connectionTerminated)
    }

    package static func abortedConnect() -> APNError {
        APNError(code: .connectTimeout, message: "the connection attempt was abandoned at the connect timeout")
    }

    package static func socketEnded(clean: Bool) -> APNError? {
        clean ? nil : APNError(code: .connectionClosed, message: "the gateway closed the connection abruptly (no close_notify)")
    }

    package static func notResent() -> APNError {
        APNError(
            code: .notResent,
            message: "discarded by the gateway after an earlier rejection and not resent (buffersNotifications is off)")
    }
}
