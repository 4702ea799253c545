/// The items of one whole command 2 frame, located and validated.
///
/// The five item slots are stored inline, an absent item as offset -1, rather than as an
/// array of optionals, so parsing a frame allocates nothing and stays a few hundred
/// instructions: the gateway decodes millions of frames a second (issue #5).
struct FrameItems {
    /// Offset (from the frame's first byte) and length of an item; offset -1: absent.
    typealias Slot = (offset: Int, length: Int)
    static let absent: Slot = (-1, 0)

    private var deviceToken = absent
    private var payload = absent
    private var identifier = absent
    private var expiry = absent
    private var priority = absent

    /// Validates the frame at the start of `bytes` (whole: `5 + frameLength` bytes there).
    static func parse(_ bytes: UnsafeRawBufferPointer, frameLength: Int, limits: GatewayDecoder.Limits) -> Step {
        var items = FrameItems()
        let structuralError = items.locate(bytes, frameLength: frameLength)
        let identifier = items.identifierValue(bytes)
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
            let value = bytes[item.offset]
            guard value == 10 || value == 5 else { return reject(.protocolError, "priority \(value)") }
            priority = value
        }
        let token = items[.deviceToken] ?? (0, 0)
        if let status = tokenStatus(token.length, limits) {
            // Both items there and empty: a confirmation marker, as ``WireBuffer`` writes one.
            if items[.deviceToken] != nil, token.length == 0, items[.payload]?.length == 0 {
                return .rejected(Rejection(
                    command: .frame, status: status, identifier: identifier,
                    reason: "confirmation marker (empty token and payload)", isConfirmationMarker: true))
            }
            return reject(status, items[.deviceToken] == nil ? "no token item" : "token length \(token.length)")
        }
        let payload = items[.payload] ?? (0, 0)
        if let status = payloadStatus(payload.length, limit: limits.framePayloadLimit) {
            return reject(status, items[.payload] == nil ? "no payload item" : "payload length \(payload.length)")
        }
        return .accepted(Located(
            command: .frame,
            identifier: identifier,
            expiry: items[.expiry].map { bytes.u32(at: $0.offset) },
            priority: priority,
            token: token.offset..<(token.offset + token.length),
            payload: payload.offset..<(payload.offset + payload.length),
            wireLength: 5 + frameLength))
    }

    /// The offset (from the frame's first byte) and length of an item seen.
    subscript(item: FrameItem) -> Slot? {
        let slot = switch item {
        case .deviceToken: deviceToken
        case .payload: payload
        case .identifier: identifier
        case .expiry: expiry
        case .priority: priority
        }
        return slot.offset < 0 ? nil : slot
    }

    /// Walks the item headers; returns why the frame is malformed, or nil.
    private mutating func locate(_ bytes: UnsafeRawBufferPointer, frameLength: Int) -> String? {
        var offset = 5
        let end = 5 + frameLength
        while offset < end {
            guard end - offset >= 3 else { return "item header past the frame end" }
            let id = bytes[offset]
            let length = Int(bytes.u16(at: offset + 1))
            guard id >= 1 && id <= 5 else { return "unknown item \(id)" }
            guard offset + 3 + length <= end else { return "item \(id) of \(length) bytes past the frame end" }
            let slot = (offset + 3, length)
            let isNew: Bool
            switch id {
            case 1: isNew = Self.store(slot, in: &deviceToken)
            case 2: isNew = Self.store(slot, in: &payload)
            case 3: isNew = Self.store(slot, in: &identifier)
            case 4: isNew = Self.store(slot, in: &expiry)
            default: isNew = Self.store(slot, in: &priority)
            }
            guard isNew else { return "duplicate item \(id)" }
            offset += 3 + length
        }
        return nil
    }

    /// Fills an empty slot; `false` when the item was already seen.
    private static func store(_ slot: Slot, in target: inout Slot) -> Bool {
        guard target.offset < 0 else { return false }
        target = slot
        return true
    }

    /// The identifier, when a well-formed identifier item was located.
    private func identifierValue(_ bytes: UnsafeRawBufferPointer) -> UInt32? {
        guard let item = self[.identifier], item.length == 4 else { return nil }
        return bytes.u32(at: item.offset)
    }
}
