/// A status code of the binary push protocol: Apple's error-response statuses (0–255)
/// and node-apn's local codes (512–515).
///
/// A struct with static constants rather than a frozen enum, so that a status byte the
/// gateway sends that is not in Apple's table is kept as it came (``isKnown`` is then
/// false) instead of failing to decode.
public struct StatusCode: RawRepresentable, Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The numeric code: Apple's status byte, or 512–515 for node-apn's local codes.
    public let rawValue: UInt16

    /// Wraps any raw value; unknown values are kept, never rejected.
    public init(rawValue: UInt16) {
        self.rawValue = rawValue
    }

    /// The status byte of a gateway error response (always an Apple status, 0–255).
    public init(wire byte: UInt8) {
        self.rawValue = UInt16(byte)
    }

    /// 0: no errors encountered.
    public static let noErrorsEncountered = StatusCode(rawValue: 0)
    /// 1: processing error.
    public static let processingError = StatusCode(rawValue: 1)
    /// 2: missing device token.
    public static let missingDeviceToken = StatusCode(rawValue: 2)
    /// 3: missing topic.
    public static let missingTopic = StatusCode(rawValue: 3)
    /// 4: missing payload.
    public static let missingPayload = StatusCode(rawValue: 4)
    /// 5: invalid token size.
    public static let invalidTokenSize = StatusCode(rawValue: 5)
    /// 6: invalid topic size.
    public static let invalidTopicSize = StatusCode(rawValue: 6)
    /// 7: invalid payload size.
    public static let invalidPayloadSize = StatusCode(rawValue: 7)
    /// 8: invalid token.
    public static let invalidToken = StatusCode(rawValue: 8)
    /// 10: shutdown. Its identifier is the **last notification that succeeded**; only what
    /// follows it needs resending.
    public static let shutdown = StatusCode(rawValue: 10)
    /// 128: protocol error; the gateway could not parse the frame.
    public static let protocolError = StatusCode(rawValue: 128)
    /// 255: none (unknown). Also what node-apn's errorCallback reports for a cache miss.
    public static let unknown = StatusCode(rawValue: 255)
    /// 512 (node-apn): the notification's `retryLimit` was exceeded.
    public static let retryLimitExceeded = StatusCode(rawValue: 512)
    /// 513 (node-apn): initialisation failed, e.g. the credentials could not be loaded.
    public static let moduleInitialisationFailed = StatusCode(rawValue: 513)
    /// 514 (node-apn): the connection failed more often than `connectionRetryLimit` allows.
    public static let connectionRetryLimitExceeded = StatusCode(rawValue: 514)
    /// 515 (node-apn): the connection was terminated; nothing more can be sent on it.
    public static let connectionTerminated = StatusCode(rawValue: 515)

    /// Every status Apple's table or node-apn defines, in ascending order.
    public static let allKnown: [StatusCode] = [
        .noErrorsEncountered, .processingError, .missingDeviceToken, .missingTopic,
        .missingPayload, .invalidTokenSize, .invalidTopicSize, .invalidPayloadSize,
        .invalidToken, .shutdown, .protocolError, .unknown, .retryLimitExceeded,
        .moduleInitialisationFailed, .connectionRetryLimitExceeded, .connectionTerminated,
    ]

    /// Whether the code is in Apple's table or node-apn's.
    public var isKnown: Bool { Self.names[rawValue] != nil }

    /// Whether the code came (or could come) from Apple's gateway: below 256.
    public var isAppleStatus: Bool { rawValue < 256 }

    /// node-apn's name for the code, e.g. `invalidToken`; `nil` when unknown.
    public var name: String? { Self.names[rawValue]?.name }

    /// A short human description, e.g. `invalid token`; `unknown status` when unknown.
    public var summary: String { Self.names[rawValue]?.summary ?? "unknown status" }

    /// `8 (invalid token)`.
    public var description: String { "\(rawValue) (\(summary))" }

    /// Orders statuses by their numeric value.
    public static func < (lhs: StatusCode, rhs: StatusCode) -> Bool {
        lhs.rawValue < rhs.rawValue
    }

    private static let names: [UInt16: (name: String, summary: String)] = [
        0: ("noErrorsEncountered", "no errors encountered"),
        1: ("processingError", "processing error"),
        2: ("missingDeviceToken", "missing device token"),
        3: ("missingTopic", "missing topic"),
        4: ("missingPayload", "missing payload"),
        5: ("invalidTokenSize", "invalid token size"),
        6: ("invalidTopicSize", "invalid topic size"),
        7: ("invalidPayloadSize", "invalid payload size"),
        8: ("invalidToken", "invalid token"),
        10: ("shutdown", "shutdown"),
        128: ("protocolError", "protocol error"),
        255: ("none", "none (unknown)"),
        512: ("retryLimitExceeded", "retry limit exceeded"),
        513: ("moduleInitialisationFailed", "module initialisation failed"),
        514: ("connectionRetryLimitExceeded", "connection retry limit exceeded"),
        515: ("connectionTerminated", "connection terminated"),
    ]
}
