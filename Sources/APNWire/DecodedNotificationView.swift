/// A valid notification as ``GatewayDecoder/next(_:)`` hands it over: the fixed-size
/// fields by value, the token and payload as views into the decoder's buffer.
///
/// The views are valid only during the call that received them: copy what you keep
/// (``copy()`` makes a ``DecodedNotification``). Nothing is allocated to hand one over,
/// which is the point: a receiver that stores millions of notifications copies the bytes
/// once, into its own storage.
public struct DecodedNotificationView {
    /// The format it came in.
    public let command: Command
    /// The identifier; `nil` for command 0 and for a frame without item 3.
    public let identifier: UInt32?
    /// The expiry in UNIX seconds; `nil` for command 0 and for a frame without item 4.
    public let expiry: UInt32?
    /// The priority; `nil` unless a frame carried item 5.
    public let priority: UInt8?
    /// The device token, valid only during the call.
    public let token: UnsafeRawBufferPointer
    /// The payload bytes, as sent, valid only during the call.
    public let payload: UnsafeRawBufferPointer
    /// How many bytes the notification took on the wire.
    public let wireLength: Int

    /// The notification with its token and payload copied into arrays.
    public func copy() -> DecodedNotification {
        DecodedNotification(
            command: command, identifier: identifier, expiry: expiry, priority: priority,
            token: Array(token), payload: Array(payload), wireLength: wireLength)
    }
}

/// What ``GatewayDecoder/next(_:)`` read next, the notification itself having been handed
/// to its closure.
public enum GatewayEvent: Hashable, Sendable {
    /// A valid notification, handed over in place: accept it.
    case notification
    /// An invalid notification: answer with ``Rejection/errorResponse`` (if any) and close.
    case rejected(Rejection)
    /// A command byte that is not 0, 1 or 2: close the connection without a response.
    case unknownCommand(UInt8)
}
