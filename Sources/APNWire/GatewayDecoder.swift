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
        guard !isFinished, input.available >= 1 else { return nil }
        let result: Step
        switch input.u8(at: 0) {
        case Command.simple.rawValue: result = decodeLegacy(.simple)
        case Command.enhanced.rawValue: result = decodeLegacy(.enhanced)
        case Command.frame.rawValue: result = decodeFrame()
        case let other:
            isFinished = true
            return .unknownCommand(other)
        }
        switch result {
        case .needMore:
            return nil
        case .accepted(let notification):
            input.consume(notification.wireLength)
            return .notification(notification)
        case .rejected(let rejection):
            isFinished = true
            return .rejected(rejection)
        }
    }

    /// Commands 0 and 1: a fixed header, the token, the payload length, the payload.
    private func decodeLegacy(_ command: Command) -> Step {
        // Offsets: command 1 carries identifier and expiry before the token length.
        let tokenLengthAt = command == .enhanced ? 9 : 1
        guard input.available >= tokenLengthAt + 2 else { return .needMore }
        let identifier = command == .enhanced ? input.u32(at: 1) : nil
        func reject(_ status: StatusCode, _ reason: String) -> Step {
            .rejected(Rejection(command: command, status: status, identifier: identifier, reason: reason))
        }
        let tokenLength = Int(input.u16(at: tokenLengthAt))
        if let status = tokenStatus(tokenLength, limits) {
            return reject(status, "token length \(tokenLength)")
        }
        let payloadLengthAt = tokenLengthAt + 2 + tokenLength
        guard input.available >= payloadLengthAt + 2 else { return .needMore }
        let payloadLength = Int(input.u16(at: payloadLengthAt))
        if let status = payloadStatus(payloadLength, limit: limits.payloadLimit(for: command)) {
            return reject(status, "payload length \(payloadLength)")
        }
        let total = payloadLengthAt + 2 + payloadLength
        guard input.available >= total else { return .needMore }
        return .accepted(DecodedNotification(
            command: command,
            identifier: identifier,
            expiry: command == .enhanced ? input.u32(at: 5) : nil,
            priority: nil,
            token: input.copy(at: tokenLengthAt + 2, count: tokenLength),
            payload: input.copy(at: payloadLengthAt + 2, count: payloadLength),
            wireLength: total))
    }

    /// Command 2: the frame is read whole (its length bounded first), then its items.
    private func decodeFrame() -> Step {
        guard input.available >= 5 else { return .needMore }
        let frameLength = Int(input.u32(at: 1))
        guard frameLength <= limits.maxFrameLength else {
            return .rejected(Rejection(
                command: .frame, status: .protocolError, identifier: nil,
                reason: "frame length \(frameLength) above \(limits.maxFrameLength)"))
        }
        guard input.available >= 5 + frameLength else { return .needMore }
        return FrameItems.parse(input, frameLength: frameLength, limits: limits)
    }
}

/// One decoding attempt: not enough bytes yet, or a verdict on the next notification.
private enum Step {
    case needMore
    case accepted(DecodedNotification)
    case rejected(Rejection)
}

private func tokenStatus(_ length: Int, _ limits: GatewayDecoder.Limits) -> StatusCode? {
    if length == 0 { return .missingDeviceToken }
    return limits.tokenLengths.contains(length) ? nil : .invalidTokenSize
}

private func payloadStatus(_ length: Int, limit: Int) -> StatusCode? {
    if length == 0 { return .missingPayload }
    return length > limit ? .invalidPayloadSize : nil
}

/// The items of one whole command 2 frame, located and validated.
private struct FrameItems {
    /// (offset from the read position, length) of each item seen, by item id 1–5.
    private var ranges: [(offset: Int, length: Int)?] = Array(repeating: nil, count: 6)

    static func parse(_ input: InputBuffer, frameLength: Int, limits: GatewayDecoder.Limits) -> Step {
        var items = FrameItems()
        let structuralError = items.locate(input, frameLength: frameLength)
        let identifier = items.identifier(input)
        func reject(_ status: StatusCode, _ reason: String) -> Step {
            .rejected(Rejection(command: .frame, status: status, identifier: identifier, reason: reason))
        }
        if let structuralError { return reject(.protocolError, structuralError) }
        if let item = items[.identifier], item.length != 4 {
            return reject(.protocolError, "identifier item of \(item.length) bytes")
        }
        if let item = items[.expiry], item.length != 4 {
            return reject(.protocolError, "expiry item of \(item.length) bytes")
        }
        var priority: UInt8?
        if let item = items[.priority] {
            guard item.length == 1 else { return reject(.protocolError, "priority item of \(item.length) bytes") }
            let value = input.u8(at: item.offset)
            guard value == 10 || value == 5 else { return reject(.protocolError, "priority \(value)") }
            priority = value
        }
        let token = items[.deviceToken] ?? (0, 0)
        if let status = tokenStatus(token.length, limits) {
            return reject(status, items[.deviceToken] == nil ? "no token item" : "token length \(token.length)")
        }
        let payload = items[.payload] ?? (0, 0)
        if let status = payloadStatus(payload.length, limit: limits.framePayloadLimit) {
            return reject(status, items[.payload] == nil ? "no payload item" : "payload length \(payload.length)")
        }
        return .accepted(DecodedNotification(
            command: .frame,
            identifier: identifier,
            expiry: items[.expiry].map { input.u32(at: $0.offset) },
            priority: priority,
            token: input.copy(at: token.offset, count: token.length),
            payload: input.copy(at: payload.offset, count: payload.length),
            wireLength: 5 + frameLength))
    }

    subscript(item: FrameItem) -> (offset: Int, length: Int)? {
        ranges[Int(item.rawValue)]
    }

    /// Walks the item headers; returns why the frame is malformed, or nil.
    private mutating func locate(_ input: InputBuffer, frameLength: Int) -> String? {
        var offset = 5
        let end = 5 + frameLength
        while offset < end {
            guard end - offset >= 3 else { return "item header past the frame end" }
            let id = input.u8(at: offset)
            let length = Int(input.u16(at: offset + 1))
            guard let item = FrameItem(rawValue: id) else { return "unknown item \(id)" }
            guard offset + 3 + length <= end else { return "item \(id) of \(length) bytes past the frame end" }
            guard ranges[Int(id)] == nil else { return "duplicate item \(id)" }
            ranges[Int(item.rawValue)] = (offset + 3, length)
            offset += 3 + length
        }
        return nil
    }

    /// The identifier, when a well-formed identifier item was located.
    private func identifier(_ input: InputBuffer) -> UInt32? {
        guard let item = self[.identifier], item.length == 4 else { return nil }
        return input.u32(at: item.offset)
    }
}
