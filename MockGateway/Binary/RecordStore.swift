import APNWire

/// The accepted notifications, stored compactly (``RecordBlocks``): tokens and payloads back
/// to back in large byte blocks, and one 32-byte entry per notification in entry blocks. Public
/// ``MockGateway/Record`` values, with their two arrays each, are built only when someone
/// asks for records.
///
/// Why: the gateway must record millions of notifications a second on one connection
/// (issue #5). Two arrays per record meant two allocations per notification, and one
/// growing array of records was copied whole at each doubling. Here nothing is allocated
/// per notification, and storage grows by whole blocks (``MemoryBlocks``) that never move.
///
/// Not copyable: the entries point into blocks this value owns and frees.
struct RecordStore: ~Copyable {
    /// One notification's fixed-size fields, and where its token and payload lie.
    struct Entry {
        /// The token, then the payload, inside a byte block.
        var bytes: UnsafeRawPointer
        var connection: Int
        var identifier: UInt32
        var expiry: UInt32
        // Token and payload lengths come from 16-bit length fields on the wire.
        var tokenLength: UInt16
        var payloadLength: UInt16
        var priority: UInt8
        var command: Command
        /// Which of identifier, expiry and priority were present (``Presence``): optional
        /// fields as flags keep an entry at 32 bytes.
        var presence: UInt8
    }

    /// Bits of ``Entry/presence``.
    private enum Presence {
        static let identifier: UInt8 = 1
        static let expiry: UInt8 = 2
        static let priority: UInt8 = 4
    }

    /// The storage, and what it keeps (``RecordBlocks/firstKept``, ``RecordBlocks/room``,
    /// ``RecordBlocks/release(upTo:)``).
    var blocks: RecordBlocks<Entry>

    /// How many notifications are stored.
    var count: Int { blocks.count }
    init(retention: RecordRetention) {
        blocks = RecordBlocks(retention: retention)
    }

    /// Stores a notification that arrived on `connection`, copying its token and payload.
    mutating func append(_ notification: DecodedNotificationView, connection: Int) {
        guard !blocks.keepsNone else { return blocks.countWithoutKeeping() }
        let tokenLength = notification.token.count
        let payloadLength = notification.payload.count
        let bytes = blocks.reserveBytes(tokenLength + payloadLength)
        // The decoder never hands over an empty token or payload, but copying from an
        // empty buffer's nil address would trap, so say so.
        if let token = notification.token.baseAddress { bytes.copyMemory(from: token, byteCount: tokenLength) }
        if let payload = notification.payload.baseAddress {
            (bytes + tokenLength).copyMemory(from: payload, byteCount: payloadLength)
        }

        var presence: UInt8 = 0
        if notification.identifier != nil { presence |= Presence.identifier }
        if notification.expiry != nil { presence |= Presence.expiry }
        if notification.priority != nil { presence |= Presence.priority }
        blocks.append(Entry(
            bytes: UnsafeRawPointer(bytes), connection: connection,
            identifier: notification.identifier ?? 0, expiry: notification.expiry ?? 0,
            tokenLength: UInt16(truncatingIfNeeded: tokenLength), payloadLength: UInt16(truncatingIfNeeded: payloadLength),
            priority: notification.priority ?? 0, command: notification.command, presence: presence))
    }

    /// An entry's optional fields, `nil` where the notification had none.
    struct Fields {
        var identifier: UInt32?
        var expiry: UInt32?
        var priority: UInt8?

        init(_ entry: Entry) {
            identifier = entry.presence & Presence.identifier != 0 ? entry.identifier : nil
            expiry = entry.presence & Presence.expiry != 0 ? entry.expiry : nil
            priority = entry.presence & Presence.priority != 0 ? entry.priority : nil
        }
    }

    /// The records at `range` (0-based positions in acceptance order), built as public values.
    /// - Precondition: `range` lies within `firstKept..<count`.
    func records(in range: Range<Int>) -> [MockGateway.Record] {
        precondition(range.lowerBound >= blocks.firstKept && range.upperBound <= count, "records \(range) of \(blocks.firstKept)..<\(count)")
        return range.map { index in
            let entry = blocks[index]
            let token = UnsafeRawBufferPointer(start: entry.bytes, count: Int(entry.tokenLength))
            let payload = UnsafeRawBufferPointer(
                start: entry.bytes + Int(entry.tokenLength), count: Int(entry.payloadLength))
            let fields = Fields(entry)
            return MockGateway.Record(
                connection: entry.connection, sequence: index + 1, command: entry.command,
                identifier: fields.identifier, token: Array(token), payload: Array(payload),
                expiry: fields.expiry, priority: fields.priority)
        }
    }
}
