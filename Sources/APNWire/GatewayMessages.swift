/// A notification as the gateway received it from a provider.
public struct DecodedNotification: Hashable, Sendable {
    /// The format it came in.
    public let command: Command
    /// The identifier; `nil` for command 0 and for a frame without item 3.
    public let identifier: UInt32?
    /// The expiry in UNIX seconds; `nil` for command 0 and for a frame without item 4.
    public let expiry: UInt32?
    /// The priority; `nil` unless a frame carried item 5.
    public let priority: UInt8?
    /// The device token.
    public let token: [UInt8]
    /// The payload bytes, as sent.
    public let payload: [UInt8]
    /// How many bytes the notification took on the wire.
    public let wireLength: Int

    /// Creates a decoded notification.
    public init(
        command: Command, identifier: UInt32?, expiry: UInt32?, priority: UInt8?,
        token: [UInt8], payload: [UInt8], wireLength: Int
    ) {
        self.command = command
        self.identifier = identifier
        self.expiry = expiry
        self.priority = priority
        self.token = token
        self.payload = payload
        self.wireLength = wireLength
    }
}

/// A notification the gateway refuses, with the status Apple would have sent.
public struct Rejection: Hashable, Sendable, CustomStringConvertible {
    /// The format of the refused notification.
    public let command: Command
    /// The status for the error response.
    public let status: StatusCode
    /// The identifier of the refused notification, when it could be read.
    public let identifier: UInt32?
    /// Why, in words, for logs and test failures.
    public let reason: String
    /// Whether the refused notification is a confirmation marker: an empty token *and* an
    /// empty payload, in command 1 (`01 <id> <expiry> 0000 0000`) or command 2 (items 1 and 2
    /// both present and empty). swift-apn writes one after what it wants confirmed; the
    /// gateway refuses it with status 2 like any empty token, so its answer settles
    /// everything before it. An empty token with a payload is a client's mistake, not a
    /// marker. Never set for command 0, which gets no answer.
    public let isConfirmationMarker: Bool

    /// Creates a rejection.
    public init(
        command: Command, status: StatusCode, identifier: UInt32?, reason: String, isConfirmationMarker: Bool = false
    ) {
        self.command = command
        self.status = status
        self.identifier = identifier
        self.reason = reason
        self.isConfirmationMarker = isConfirmationMarker
    }

    /// The error response to send, or `nil` for command 0: the simple format has no
    /// identifier, so Apple's gateway just closed the connection.
    public var errorResponse: ErrorResponse? {
        command == .simple ? nil : ErrorResponse(status: status, identifier: identifier ?? 0)
    }

    /// `command 1 (enhanced) rejected with 5 (invalid token size), identifier 7: …`.
    public var description: String {
        "\(command) rejected with \(status), identifier \(identifier.map(String.init) ?? "unknown"): \(reason)"
    }
}

/// What the gateway-side decoder read next.
public enum GatewayMessage: Hashable, Sendable {
    /// A valid notification, to accept.
    case notification(DecodedNotification)
    /// An invalid notification: answer with ``Rejection/errorResponse`` (if any) and close.
    case rejected(Rejection)
    /// A command byte that is not 0, 1 or 2: close the connection without a response.
    case unknownCommand(UInt8)
}
