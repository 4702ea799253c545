import APNWire
import APNWire

/// The HTTP/2 gateway's accepted notifications, stored compactly in ``RecordBlocks`` as the
/// binary gateway's ``RecordStore`` stores its own: one 40-byte entry each, the variable
/// bytes (token, `apns-id`, collapse id, payload) back to back, topics and authentications
/// interned. A record costs its bytes and 40 more, and no
/// allocation of its own; the request's strings and arrays are freed as soon as it is
/// answered. Public ``HTTP2MockGateway/Record`` values are built only when asked for.
///
/// Why: a soak run at 150,000 requests a second keeps millions of records; kept as the
/// request's own strings and arrays they took about 600 bytes each.
///
/// Not copyable: the entries point into blocks this value owns and frees.
struct HTTP2RecordStore: ~Copyable {
    /// One record's fixed-size fields, and where its bytes lie.
    struct Entry {
        /// The token (binary), the `apns-id` (text), the collapse id (text), the payload.
        var bytes: UnsafeRawPointer
        var expiration: Int
        var payloadLength: UInt32
        var connection: UInt32
        var topic: UInt32
        var authentication: UInt32
        var tokenLength: UInt16
        var apnsIDLength: UInt8
        /// The collapse id's length plus one; 0 when there is none.
        var collapseIDLength: UInt8
        /// The index in ``PushType/documented`` plus one; 0 when none was sent.
        var pushType: UInt8
        /// The priority; 0 when none was sent.
        var priority: UInt8
        var hasExpiration: Bool
    }

    fileprivate static let pushTypes = PushType.documented.map(\.rawValue)

    /// The storage, and what it keeps (``RecordBlocks/firstKept``, ``RecordBlocks/room``,
    /// ``RecordBlocks/release(upTo:)``).
    var blocks: RecordBlocks<Entry>
    private(set) var topics = Interned<String>()
    private(set) var authentications = Interned<HTTP2MockGateway.Authentication>()
    /// How many records are stored.
    var count: Int { blocks.count }
    init(retention: RecordRetention) {
        blocks = RecordBlocks(retention: retention)
    }

    /// Stores `request`, accepted on `connection`, copying what it keeps.
    mutating func append(_ request: ValidatedRequest, connection: Int) {
        guard !blocks.keepsNone else { return blocks.countWithoutKeeping() }
        var collapseID = request.collapseID ?? ""
        let entry = request.path.withBytes { path in
            request.apnsID.withUTF8 { apnsID in
                collapseID.withUTF8 { collapseID in
                    request.payload.withUnsafeBytes { payload in
                        // The path was validated: `/3/device/` and an even number of hex digits.
                        let hexToken = UnsafeBufferPointer(rebasing: path[RequestValidator.pathPrefix.utf8.count...])
                        var cursor = blocks.reserveBytes(hexToken.count / 2 + apnsID.count + collapseID.count + payload.count)
                        let start = UnsafeRawPointer(cursor)
                        for index in stride(from: 0, to: hexToken.count, by: 2) {
                            let byte = Self.nibble(hexToken[index]) << 4 | Self.nibble(hexToken[index + 1])
                            cursor.storeBytes(of: byte, as: UInt8.self)
                            cursor += 1
                        }
                        Self.copy(apnsID, to: &cursor)
                        Self.copy(UnsafeRawBufferPointer(collapseID), to: &cursor)
                        Self.copy(payload, to: &cursor)
                        return Entry(
                            bytes: start, expiration: request.expiration ?? 0, payloadLength: UInt32(payload.count),
                            connection: UInt32(truncatingIfNeeded: connection), topic: 0, authentication: 0,
                            tokenLength: UInt16(hexToken.count / 2), apnsIDLength: UInt8(truncatingIfNeeded: apnsID.count),
                            collapseIDLength: request.collapseID == nil ? 0 : UInt8(truncatingIfNeeded: collapseID.count + 1),
                            pushType: 0, priority: UInt8(truncatingIfNeeded: request.priority ?? 0),
                            hasExpiration: request.expiration != nil)
                    }
                }
            }
        }
        var complete = entry
        complete.topic = topics.index(of: request.topic)
        complete.authentication = authentications.index(of: request.authentication)
        if let pushType = request.pushType, let index = Self.pushTypes.firstIndex(of: pushType) {
            complete.pushType = UInt8(index + 1)
        }
        blocks.append(complete)
    }

    /// The value of a hex digit already validated (either case), without a call or an
    /// optional: 64 of these a record.
    private static func nibble(_ digit: UInt8) -> UInt8 {
        // '0'…'9' are 0x30…0x39; 'a'…'f' and 'A'…'F' have 1…6 in their low bits.
        digit <= UInt8(ascii: "9") ? digit &- UInt8(ascii: "0") : (digit & 0x0F) &+ 9
    }

    /// Copies `bytes` to `cursor` and moves it past them.
    private static func copy(_ bytes: UnsafeRawBufferPointer, to cursor: inout UnsafeMutableRawPointer) {
        if let base = bytes.baseAddress, !bytes.isEmpty { cursor.copyMemory(from: base, byteCount: bytes.count) }
        cursor += bytes.count
    }

    /// One entry's fields, read from its bytes and flags.
    struct Parts {
        /// The token (binary), the `apns-id`, the collapse id (empty when none was sent:
        /// ``Entry/collapseIDLength`` tells an empty one apart) and the payload.
        var token, apnsID, collapseID, payload: UnsafeRawBufferPointer
        /// The push type's raw value, when sent.
        var pushType: String?
        var priority, expiration: Int?

        /// The parts of `entry`, whose bytes are at `bytes` (its own, or a copy of them).
        init(_ entry: Entry, bytes: UnsafeRawPointer) {
            var cursor = bytes
            func take(_ count: Int) -> UnsafeRawBufferPointer {
                defer { cursor += count }
                return UnsafeRawBufferPointer(start: cursor, count: count)
            }
            token = take(Int(entry.tokenLength))
            apnsID = take(Int(entry.apnsIDLength))
            collapseID = take(max(0, Int(entry.collapseIDLength) - 1))
            payload = take(Int(entry.payloadLength))
            pushType = entry.pushType == 0 ? nil : HTTP2RecordStore.pushTypes[Int(entry.pushType) - 1]
            priority = entry.priority == 0 ? nil : Int(entry.priority)
            expiration = entry.hasExpiration ? entry.expiration : nil
        }
    }

    /// The records at `range` (0-based positions in acceptance order), as public values.
    /// - Precondition: `range` lies within `firstKept..<count`.
    func records(in range: Range<Int>) -> [HTTP2MockGateway.Record] {
        precondition(range.lowerBound >= blocks.firstKept && range.upperBound <= count, "records \(range) of \(blocks.firstKept)..<\(count)")
        return range.map { index in
            let entry = blocks[index]
            let parts = Parts(entry, bytes: entry.bytes)
            return HTTP2MockGateway.Record(
                connection: Int(entry.connection), sequence: index + 1, token: hexString(parts.token),
                topic: topics[entry.topic], pushType: parts.pushType.flatMap(PushType.init(rawValue:)),
                priority: parts.priority, expiration: parts.expiration,
                collapseID: entry.collapseIDLength == 0 ? nil : String(decoding: parts.collapseID, as: UTF8.self),
                apnsID: String(decoding: parts.apnsID, as: UTF8.self),
                payload: Array(parts.payload), authentication: authentications[entry.authentication])
        }
    }
}

extension HTTP2RecordStore.Entry {
    /// How many bytes the record has in its byte block.
    var byteCount: Int {
        Int(tokenLength) + Int(apnsIDLength) + max(0, Int(collapseIDLength) - 1) + Int(payloadLength)
    }
}

/// Values stored once and named by their index: the topics and authentications records
/// share. The last value looked up is checked first, as consecutive records usually share it.
struct Interned<Value: Hashable> {
    /// Every value stored, each at its index.
    private(set) var values: [Value] = []
    private var indices: [Value: UInt32] = [:]
    private var last: (value: Value, index: UInt32)?

    mutating func index(of value: Value) -> UInt32 {
        if let last, last.value == value { return last.index }
        let index = indices[value] ?? {
            let index = UInt32(values.count)
            values.append(value)
            indices[value] = index
            return index
        }()
        last = (value, index)
        return index
    }

    subscript(index: UInt32) -> Value { values[Int(index)] }
}
