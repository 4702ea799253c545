/// Journal rows of one tenant and one bridge instance in one SQLite value (#41, schema 5): a
/// group commit inserts one segment instead of one row per notification, so the store's
/// cost per notification is a copy of its bytes, not a B-tree insert (SQLite spent about
/// 9,000 instructions inserting each row; the bridge's journal then cost a quarter of its
/// throughput).
///
/// The format, little-endian: a version byte (1), then per row its seq (Int64), when it was
/// read (Int64, UNIX ms), its expiry (UInt32), its priority (UInt8), its token's length
/// (UInt16), its payload's length (UInt32), the token, the payload. A row's answer is not in
/// the segment (it comes later): `bridge_journal_answers` holds those, each commit's in one
/// value of its own (``encodeAnswers(_:)``): the version byte, then (seq, answer) as two
/// Int64s each.
enum JournalSegment {
    static let version: UInt8 = 1

    /// `rows` (one tenant's, in seq order) as one segment.
    static func encode(_ rows: some Collection<BridgeStateStore.JournalRow>) -> [UInt8] {
        var bytes: [UInt8] = [version]
        bytes.reserveCapacity(1 + rows.reduce(0) { $0 + 27 + $1.token.count + $1.payload.count })
        for row in rows {
            append(row.seq, to: &bytes)
            append(row.recordedAt, to: &bytes)
            append(row.expiry, to: &bytes)
            bytes.append(row.priority)
            append(UInt16(truncatingIfNeeded: row.token.count), to: &bytes)
            append(UInt32(truncatingIfNeeded: row.payload.count), to: &bytes)
            bytes += row.token
            bytes += row.payload
        }
        return bytes
    }

    /// The rows of a segment `instance` wrote for `tenant`; `answers` by seq.
    ///
    /// - Throws: ``StoreError`` (`corrupt`) for bytes this code could not have written.
    static func decode(
        _ bytes: [UInt8], instance: Int64, tenant: String, answers: [Int64: Int64] = [:]
    ) throws(StoreError) -> [BridgeStateStore.JournalRow] {
        var reader = Reader(bytes: bytes)
        guard try reader.integer(UInt8.self) == version else {
            throw StoreError(.corrupt, "the token store holds a journal segment of an unknown version")
        }
        var rows: [BridgeStateStore.JournalRow] = []
        while !reader.atEnd {
            let seq = try reader.integer(Int64.self)
            let recordedAt = try reader.integer(Int64.self)
            let expiry = try reader.integer(UInt32.self)
            let priority = try reader.integer(UInt8.self)
            let tokenLength = Int(try reader.integer(UInt16.self))
            let payloadLength = Int(try reader.integer(UInt32.self))
            let token = try reader.bytes(tokenLength)
            let payload = try reader.bytes(payloadLength)
            rows.append(
                BridgeStateStore.JournalRow(
                    instance: instance, seq: seq, tenant: tenant, token: token, payload: payload, expiry: expiry,
                    priority: priority, answer: answers[seq], recordedAt: recordedAt))
        }
        return rows
    }

    /// One commit's answers (seq, code) as one value.
    static func encodeAnswers(_ answers: [(seq: Int64, answer: Int64)]) -> [UInt8] {
        var bytes: [UInt8] = [version]
        bytes.reserveCapacity(1 + 16 * answers.count)
        for (seq, answer) in answers {
            append(seq, to: &bytes)
            append(answer, to: &bytes)
        }
        return bytes
    }

    /// Adds the answers of one value to `answers` (a later one for a seq wins).
    ///
    /// - Throws: ``StoreError`` (`corrupt`) for bytes this code could not have written.
    static func decodeAnswers(_ bytes: [UInt8], into answers: inout [Int64: Int64]) throws(StoreError) {
        var reader = Reader(bytes: bytes)
        guard try reader.integer(UInt8.self) == version else {
            throw StoreError(.corrupt, "the token store holds journal answers of an unknown version")
        }
        while !reader.atEnd {
            let seq = try reader.integer(Int64.self)
            answers[seq] = try reader.integer(Int64.self)
        }
    }

    private static func append<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes += $0 }
    }

    /// Reads a segment front to back; every read checks the bytes are there.
    private struct Reader {
        let bytes: [UInt8]
        var offset = 0

        var atEnd: Bool { offset == bytes.count }

        mutating func integer<T: FixedWidthInteger>(_: T.Type) throws(StoreError) -> T {
            let size = MemoryLayout<T>.size
            guard bytes.count - offset >= size else { throw Self.truncated }
            var value: T = 0
            for index in 0..<size { value |= T(truncatingIfNeeded: bytes[offset + index]) << (8 * index) }
            offset += size
            return value
        }

        mutating func bytes(_ count: Int) throws(StoreError) -> [UInt8] {
            guard bytes.count - offset >= count else { throw Self.truncated }
            defer { offset += count }
            return Array(bytes[offset..<offset + count])
        }

        static let truncated = StoreError(.corrupt, "the token store holds a journal segment cut short")
    }
}
