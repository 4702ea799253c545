/// The notification formats a provider can send to the gateway, by command byte.
public enum Command: UInt8, Sendable, CaseIterable, CustomStringConvertible {
    /// Command 0, the simple format: no identifier, no expiry; errors cannot be attributed.
    case simple = 0
    /// Command 1, the enhanced format: identifier and expiry. swift-apn's default.
    case enhanced = 1
    /// Command 2, the frame format: items for token, payload, identifier, expiry, priority.
    case frame = 2

    /// The payload limit Apple enforced for the format: 256 bytes for commands 0 and 1,
    /// 2048 for command 2 (iOS 8 and later).
    public var payloadLimit: Int {
        switch self {
        case .simple, .enhanced: 256
        case .frame: 2048
        }
    }

    /// The payload limit for command 2 when node-apn's `voip` option was set.
    public static let voipPayloadLimit = 4096

    /// Whether frames in this format carry an identifier the gateway can name in an error.
    public var carriesIdentifier: Bool { self != .simple }

    /// `command 2 (frame)`.
    public var description: String {
        switch self {
        case .simple: "command 0 (simple)"
        case .enhanced: "command 1 (enhanced)"
        case .frame: "command 2 (frame)"
        }
    }

    /// The command byte of the gateway's error response.
    public static let errorResponseByte: UInt8 = 8
    /// The length of the gateway's error response: `08 | status u8 | identifier u32`.
    public static let errorResponseLength = 6
}

/// The item identifiers of a command 2 frame.
public enum FrameItem: UInt8, Sendable, CaseIterable {
    /// Item 1: the device token.
    case deviceToken = 1
    /// Item 2: the JSON payload.
    case payload = 2
    /// Item 3: the notification identifier, 4 bytes.
    case identifier = 3
    /// Item 4: the expiry in UNIX seconds, 4 bytes.
    case expiry = 4
    /// Item 5: the priority, 1 byte (10 immediate, 5 power-saving).
    case priority = 5
}
