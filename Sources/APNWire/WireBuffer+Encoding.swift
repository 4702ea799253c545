// Encoders for every byte format of the protocol. Each computes the frame length first,
// reserves it with one capacity check and stores the fields through a raw pointer, so
// appending to a warm buffer never allocates. Integers are big-endian throughout.

extension WireBuffer {
    /// Appends a command 0 (simple) notification:
    /// `00 | tokenLen u16 | token | payloadLen u16 | payload` (5 + T + P bytes).
    /// - Precondition: token and payload are each at most 65,535 bytes.
    public mutating func writeSimpleNotification(token: [UInt8], payload: [UInt8]) {
        precondition(token.count <= 0xFFFF && payload.count <= 0xFFFF, "field longer than a u16 length allows")
        let length = 5 + token.count + payload.count
        var cursor = FieldWriter(writableStart(length))
        cursor.byte(Command.simple.rawValue)
        cursor.u16(UInt16(truncatingIfNeeded: token.count))
        cursor.bytes(token)
        cursor.u16(UInt16(truncatingIfNeeded: payload.count))
        cursor.bytes(payload)
        writerIndex += length
    }

    /// Appends a command 1 (enhanced) notification:
    /// `01 | identifier u32 | expiry u32 | tokenLen u16 | token | payloadLen u16 | payload`
    /// (13 + T + P bytes).
    /// - Precondition: token and payload are each at most 65,535 bytes.
    public mutating func writeEnhancedNotification(
        identifier: UInt32, expiry: UInt32, token: [UInt8], payload: [UInt8]
    ) {
        precondition(token.count <= 0xFFFF && payload.count <= 0xFFFF, "field longer than a u16 length allows")
        let length = 13 + token.count + payload.count
        var cursor = FieldWriter(writableStart(length))
        cursor.byte(Command.enhanced.rawValue)
        cursor.u32(identifier)
        cursor.u32(expiry)
        cursor.u16(UInt16(truncatingIfNeeded: token.count))
        cursor.bytes(token)
        cursor.u16(UInt16(truncatingIfNeeded: payload.count))
        cursor.bytes(payload)
        writerIndex += length
    }

    /// The byte length of a command 2 frame as ``writeFrameNotification`` writes it:
    /// 5 header bytes plus items 1–5 (29 + T + P).
    public static func frameNotificationLength(tokenCount: Int, payloadCount: Int) -> Int {
        5 + frameItemsLength(tokenCount: tokenCount, payloadCount: payloadCount)
    }

    private static func frameItemsLength(tokenCount: Int, payloadCount: Int) -> Int {
        (3 + tokenCount) + (3 + payloadCount) + (3 + 4) + (3 + 4) + (3 + 1)
    }

    /// Appends a command 2 (frame) notification with all five items, in order:
    /// 1 token, 2 payload, 3 identifier, 4 expiry, 5 priority.
    ///
    /// Unlike node-apn 1.7.8, expiry 0 and priority 10 are written rather than omitted, so
    /// every frame states its expiry and priority explicitly; gateways accept either form.
    /// - Precondition: token and payload are each at most 65,535 bytes.
    public mutating func writeFrameNotification(
        identifier: UInt32, expiry: UInt32, priority: UInt8, token: [UInt8], payload: [UInt8]
    ) {
        precondition(token.count <= 0xFFFF && payload.count <= 0xFFFF, "field longer than a u16 length allows")
        let itemsLength = Self.frameItemsLength(tokenCount: token.count, payloadCount: payload.count)
        let length = 5 + itemsLength
        var cursor = FieldWriter(writableStart(length))
        cursor.byte(Command.frame.rawValue)
        cursor.u32(UInt32(truncatingIfNeeded: itemsLength))
        cursor.byte(FrameItem.deviceToken.rawValue)
        cursor.u16(UInt16(truncatingIfNeeded: token.count))
        cursor.bytes(token)
        cursor.byte(FrameItem.payload.rawValue)
        cursor.u16(UInt16(truncatingIfNeeded: payload.count))
        cursor.bytes(payload)
        cursor.byte(FrameItem.identifier.rawValue)
        cursor.u16(4)
        cursor.u32(identifier)
        cursor.byte(FrameItem.expiry.rawValue)
        cursor.u16(4)
        cursor.u32(expiry)
        cursor.byte(FrameItem.priority.rawValue)
        cursor.u16(1)
        cursor.byte(priority)
        writerIndex += length
    }

    /// Appends a notification in the given format. `identifier`, `expiry` and `priority`
    /// are ignored where the format has no field for them.
    public mutating func writeNotification(
        _ command: Command, identifier: UInt32, expiry: UInt32, priority: UInt8,
        token: [UInt8], payload: [UInt8]
    ) {
        switch command {
        case .simple:
            writeSimpleNotification(token: token, payload: payload)
        case .enhanced:
            writeEnhancedNotification(identifier: identifier, expiry: expiry, token: token, payload: payload)
        case .frame:
            writeFrameNotification(
                identifier: identifier, expiry: expiry, priority: priority, token: token, payload: payload)
        }
    }

    /// Appends the gateway's 6-byte error response: `08 | status u8 | identifier u32`.
    /// - Precondition: `status` is an Apple status (below 256).
    public mutating func writeErrorResponse(status: StatusCode, identifier: UInt32) {
        precondition(status.isAppleStatus, "\(status) cannot be sent on the wire")
        var cursor = FieldWriter(writableStart(Command.errorResponseLength))
        cursor.byte(Command.errorResponseByte)
        cursor.byte(UInt8(truncatingIfNeeded: status.rawValue))
        cursor.u32(identifier)
        writerIndex += Command.errorResponseLength
    }

    /// Appends one feedback tuple: `time u32 | tokenLen u16 | token` (6 + T bytes).
    /// - Precondition: the token is at most 65,535 bytes.
    public mutating func writeFeedbackTuple(time: UInt32, token: [UInt8]) {
        precondition(token.count <= 0xFFFF, "token longer than a u16 length allows")
        let length = 6 + token.count
        var cursor = FieldWriter(writableStart(length))
        cursor.u32(time)
        cursor.u16(UInt16(truncatingIfNeeded: token.count))
        cursor.bytes(token)
        writerIndex += length
    }
}

/// Stores big-endian fields at a moving position in memory reserved beforehand.
@usableFromInline
struct FieldWriter {
    @usableFromInline var position: UnsafeMutableRawPointer

    @inlinable init(_ start: UnsafeMutableRawPointer) {
        position = start
    }

    @inlinable mutating func byte(_ value: UInt8) {
        position.storeBytes(of: value, as: UInt8.self)
        position += 1
    }

    @inlinable mutating func u16(_ value: UInt16) {
        position.storeBytes(of: value.bigEndian, as: UInt16.self)
        position += 2
    }

    @inlinable mutating func u32(_ value: UInt32) {
        position.storeBytes(of: value.bigEndian, as: UInt32.self)
        position += 4
    }

    @inlinable mutating func bytes(_ value: [UInt8]) {
        let count = value.count
        value.withUnsafeBytes { source in
            if let base = source.baseAddress, count > 0 {
                position.copyMemory(from: base, byteCount: count)
            }
        }
        position += count
    }
}
