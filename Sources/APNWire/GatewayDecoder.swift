/// Decodes what a provider sends to the gateway — commands 0, 1 and 2 — validating each
/// notification as Apple's gateway did, from reads of any size.
///
/// Feed it bytes, then call ``next()`` until it returns `nil` (more bytes needed).
/// Every length field is checked against ``Limits`` before the decoder waits for (and so
/// buffers) the bytes it announces. A rejection or an unknown command ends the stream:
/// the gateway answers and closes, and nothing after it is read (``isFinished``).
///
/// Validation, in the order Apple's statuses imply:
/// - token length 0 → 2 (missing device token); outside ``Limits/tokenLengths`` → 5;
///   an empty token with an empty payload in command 1 or 2 is a confirmation marker
///   (``Rejection/isConfirmationMarker``): still 2, and in command 1 decided once the
///   payload length (the two bytes after the token length) has arrived;
/// - payload length 0 → 4 (missing payload); above the format's limit → 7;
/// - command 2: a frame longer than ``Limits/maxFrameLength``, an item header or length
///   running past the frame, an unknown or duplicated item, an identifier or expiry item
///   not 4 bytes long, a priority item not 1 byte long or not 5 or 10 → 128 (protocol
///   error). Items 3–5 may be absent; items 1 and 2 may not (2 and 4).
public struct GatewayDecoder: Sendable {
    /// The bounds a notification must respect.
    public struct Limits: Hashable, Sendable {
        /// Accepted token lengths. Apple's tokens were 32 bytes; the frame format allowed
        /// up to 100 for the future.
        public var tokenLengths: ClosedRange<Int>
        /// Payload limit for commands 0 and 1 (256).
        public var legacyPayloadLimit: Int
        /// Payload limit for command 2 (2048; 4096 for VoIP certificates).
        public var framePayloadLimit: Int
        /// The longest command 2 frame that is read whole and validated item by item;
        /// a longer frame length is refused with 128 before anything is buffered for it.
        public var maxFrameLength: Int

        /// Apple's limits: 32-byte tokens, 256-byte payloads for commands 0 and 1,
        /// 2048-byte payloads for command 2, frames up to 8 KiB.
        public init(
            tokenLengths: ClosedRange<Int> = 32...32,
            legacyPayloadLimit: Int = Command.enhanced.payloadLimit,
            framePayloadLimit: Int = Command.frame.payloadLimit,
            maxFrameLength: Int = 8192
        ) {
            self.tokenLengths = tokenLengths
            self.legacyPayloadLimit = legacyPayloadLimit
            self.framePayloadLimit = framePayloadLimit
            self.maxFrameLength = maxFrameLength
        }

        func payloadLimit(for command: Command) -> Int {
            command == .frame ? framePayloadLimit : legacyPayloadLimit
        }
    }

    /// The bounds this decoder enforces.
    public let limits: Limits
    private var input = InputBuffer()
    /// Set once a rejection or an unknown command was returned.
    public private(set) var isFinished = false
    /// Notifications decoded so far: a server tells a frame left unfinished (the count
    /// has not moved while bytes wait) from a stream that keeps completing frames.
    public private(set) var decodedCount = 0

    /// A decoder enforcing `limits`.
    public init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// Bytes fed and not yet decoded.
    public var bufferedByteCount: Int { input.available }

    /// Adds bytes read from the provider. Bytes fed after the stream finished are ignored.
    public mutating func feed(_ bytes: UnsafeRawBufferPointer) {
        if !isFinished { input.append(bytes) }
    }

    /// Adds bytes read from the provider.
    public mutating func feed(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { feed($0) }
    }

    /// The next notification, rejection or unknown command; `nil` when more bytes are
    /// needed or the stream has finished.
    public mutating func next() -> GatewayMessage? {
        var decoded: DecodedNotification?
        switch next({ decoded = $0.copy() }) {
        case nil: return nil
        case .notification: return decoded.map(GatewayMessage.notification)
        case .rejected(let rejection): return .rejected(rejection)
        case .unknownCommand(let command): return .unknownCommand(command)
        }
    }

    /// Decodes the next message like ``next()``, but hands a valid notification to
    /// `handle` in place — its token and payload are views into the decoder's buffer,
    /// valid only during the call — instead of copying them into arrays. For a receiver
    /// that stores the bytes its own way (MockGateway's records).
    ///
    /// - Returns: ``GatewayEvent/notification`` after `handle` ran, the rejection or
    ///   unknown command that ends the stream, or `nil` when more bytes are needed or the
    ///   stream has finished.
    public mutating func next(_ handle: (DecodedNotificationView) -> Void) -> GatewayEvent? {
        guard !isFinished, input.available >= 1 else { return nil }
        let limits = self.limits
        // One switch over the step, inside the closure: the step (which can carry a
        // rejection with its text) is consumed there rather than copied out.
        let step = input.withUnsafeReadableBytes { bytes -> HandledStep in
            switch decodeOne(bytes, limits: limits) {
            case .needMore: return .needMore
            case .accepted(let located):
                handle(located.view(in: bytes))
                return .handled(wireLength: located.wireLength)
            case .rejected(let rejection): return .rejected(rejection)
            case .unknownCommand(let command): return .unknownCommand(command)
            }
        }
        switch step {
        case .needMore:
            return nil
        case .handled(let wireLength):
            input.consume(wireLength)
            decodedCount += 1
            return .notification
        case .rejected(let rejection):
            isFinished = true
            return .rejected(rejection)
        case .unknownCommand(let command):
            isFinished = true
            return .unknownCommand(command)
        }
    }
}

/// One decoding attempt over the readable bytes: not enough bytes yet, or a verdict on
/// the next message.
enum Step {
    case needMore
    case accepted(Located)
    case rejected(Rejection)
    case unknownCommand(UInt8)
}

/// A step once its notification, if any, was handed over.
private enum HandledStep {
    case needMore
    case handled(wireLength: Int)
    case rejected(Rejection)
    case unknownCommand(UInt8)
}

/// Where a valid notification lies in the readable bytes, and its fixed-size fields.
struct Located {
    var command: Command
    var identifier: UInt32?
    var expiry: UInt32?
    var priority: UInt8?
    var token: Range<Int>
    var payload: Range<Int>
    var wireLength: Int

    func view(in bytes: UnsafeRawBufferPointer) -> DecodedNotificationView {
        DecodedNotificationView(
            command: command, identifier: identifier, expiry: expiry, priority: priority,
            token: UnsafeRawBufferPointer(rebasing: bytes[token]),
            payload: UnsafeRawBufferPointer(rebasing: bytes[payload]),
            wireLength: wireLength)
    }
}

/// Decodes the message at the start of `bytes` (at least one byte).
private func decodeOne(_ bytes: UnsafeRawBufferPointer, limits: GatewayDecoder.Limits) -> Step {
    switch bytes[0] {
    case Command.simple.rawValue: decodeLegacy(.simple, bytes, limits: limits)
    case Command.enhanced.rawValue: decodeLegacy(.enhanced, bytes, limits: limits)
    case Command.frame.rawValue: decodeFrame(bytes, limits: limits)
    case let other: .unknownCommand(other)
    }
}

/// Commands 0 and 1: a fixed header, the token, the payload length, the payload.
private func decodeLegacy(_ command: Command, _ bytes: UnsafeRawBufferPointer, limits: GatewayDecoder.Limits) -> Step {
    // Offsets: command 1 carries identifier and expiry before the token length.
    let tokenLengthAt = command == .enhanced ? 9 : 1
    guard bytes.count >= tokenLengthAt + 2 else { return .needMore }
    let identifier = command == .enhanced ? bytes.u32(at: 1) : nil
    func reject(_ status: StatusCode, _ reason: String) -> Step {
        .rejected(Rejection(command: command, status: status, identifier: identifier, reason: reason))
    }
    let tokenLength = Int(bytes.u16(at: tokenLengthAt))
    let payloadLengthAt = tokenLengthAt + 2 + tokenLength
    if let status = tokenStatus(tokenLength, limits) {
        guard tokenLength == 0, command == .enhanced else { return reject(status, "token length \(tokenLength)") }
        // An empty token: a confirmation marker when its payload is empty too, which the
        // payload length (two bytes on) tells.
        guard bytes.count >= payloadLengthAt + 2 else { return .needMore }
        let payloadLength = bytes.u16(at: payloadLengthAt)
        return .rejected(Rejection(
            command: command, status: status, identifier: identifier,
            reason: payloadLength == 0 ? "confirmation marker (empty token and payload)" : "token length 0",
            isConfirmationMarker: payloadLength == 0))
    }
    guard bytes.count >= payloadLengthAt + 2 else { return .needMore }
    let payloadLength = Int(bytes.u16(at: payloadLengthAt))
    if let status = payloadStatus(payloadLength, limit: limits.payloadLimit(for: command)) {
        return reject(status, "payload length \(payloadLength)")
    }
    let total = payloadLengthAt + 2 + payloadLength
    guard bytes.count >= total else { return .needMore }
    return .accepted(Located(
        command: command,
        identifier: identifier,
        expiry: command == .enhanced ? bytes.u32(at: 5) : nil,
        priority: nil,
        token: (tokenLengthAt + 2)..<(payloadLengthAt),
        payload: (payloadLengthAt + 2)..<total,
        wireLength: total))
}

/// Command 2: the frame is read whole (its length bounded first), then its items.
private func decodeFrame(_ bytes: UnsafeRawBufferPointer, limits: GatewayDecoder.Limits) -> Step {
    guard bytes.count >= 5 else { return .needMore }
    let frameLength = Int(bytes.u32(at: 1))
    guard frameLength <= limits.maxFrameLength else {
        return .rejected(Rejection(
            command: .frame, status: .protocolError, identifier: nil,
            reason: "frame length \(frameLength) above \(limits.maxFrameLength)"))
    }
    guard bytes.count >= 5 + frameLength else { return .needMore }
    if let located = canonicalFrame(bytes, frameLength: frameLength, limits: limits) {
        return .accepted(located)
    }
    return FrameItems.parse(bytes, frameLength: frameLength, limits: limits)
}

/// The common case, checked in a few dozen instructions: items 1 to 5 once each, in order,
/// every one valid — what node-apn and ``WireBuffer`` write. `nil` for anything else,
/// which ``FrameItems`` then parses in full (and accepts or rejects) as before: this path
/// only ever accepts what that parse would accept, with the same fields.
private func canonicalFrame(_ bytes: UnsafeRawBufferPointer, frameLength: Int, limits: GatewayDecoder.Limits) -> Located? {
    // 02 | length | 01 tokenLength token | 02 payloadLength payload | 03 0004 id | 04 0004 expiry | 05 0001 priority
    // Every read below is inside the frame, whose bytes are all there: each guard checks
    // the room for the next read before it happens.
    let end = 5 + frameLength
    let fixedItems = 7 + 7 + 4  // items 3, 4 and 5 with their headers
    guard end >= 8 + 3 + fixedItems, bytes[5] == FrameItem.deviceToken.rawValue else { return nil }
    let tokenLength = Int(bytes.u16(at: 6))
    let payloadAt = 8 + tokenLength
    guard payloadAt + 3 + fixedItems <= end, tokenLength > 0, limits.tokenLengths.contains(tokenLength),
          bytes[payloadAt] == FrameItem.payload.rawValue
    else { return nil }
    let payloadLength = Int(bytes.u16(at: payloadAt + 1))
    let identifierAt = payloadAt + 3 + payloadLength
    guard identifierAt + fixedItems == end, payloadLength > 0, payloadLength <= limits.framePayloadLimit,
          bytes[identifierAt] == FrameItem.identifier.rawValue, bytes.u16(at: identifierAt + 1) == 4,
          bytes[identifierAt + 7] == FrameItem.expiry.rawValue, bytes.u16(at: identifierAt + 8) == 4,
          bytes[identifierAt + 14] == FrameItem.priority.rawValue, bytes.u16(at: identifierAt + 15) == 1
    else { return nil }
    let priority = bytes[identifierAt + 17]
    guard priority == 10 || priority == 5 else { return nil }
    return Located(
        command: .frame, identifier: bytes.u32(at: identifierAt + 3), expiry: bytes.u32(at: identifierAt + 10),
        priority: priority, token: 8..<payloadAt, payload: (payloadAt + 3)..<identifierAt,
        wireLength: 5 + frameLength)
}

func tokenStatus(_ length: Int, _ limits: GatewayDecoder.Limits) -> StatusCode? {
    if length == 0 { return .missingDeviceToken }
    return limits.tokenLengths.contains(length) ? nil : .invalidTokenSize
}

func payloadStatus(_ length: Int, limit: Int) -> StatusCode? {
    if length == 0 { return .missingPayload }
    return length > limit ? .invalidPayloadSize : nil
}

extension UnsafeRawBufferPointer {
    /// The big-endian u16 at `offset`. - Precondition: the two bytes are there.
    @inline(__always)
    func u16(at offset: Int) -> UInt16 {
        UInt16(self[offset]) << 8 | UInt16(self[offset + 1])
    }

    /// The big-endian u32 at `offset`. - Precondition: the four bytes are there.
    @inline(__always)
    func u32(at offset: Int) -> UInt32 {
        UInt32(u16(at: offset)) << 16 | UInt32(u16(at: offset + 2))
    }
}
