import CPostgreSQL

/// One `PGresult`, cleared when released, read in libpq's binary format (every statement
/// asks for binary results): `int8` as 8 bytes big-endian, `bool` as one byte, `text` and
/// `bytea` as their bytes.
final class PostgresResult {
    let handle: OpaquePointer

    init(_ handle: OpaquePointer) {
        self.handle = handle
    }

    deinit {
        PQclear(handle)
    }

    var rows: Int32 { PQntuples(handle) }

    /// Rows an INSERT, UPDATE or DELETE changed (`PQcmdTuples`).
    var changes: Int {
        guard let text = PQcmdTuples(handle) else { return 0 }
        return Int(String(cString: text)) ?? 0
    }

    func isNull(_ row: Int32, _ column: Int32) -> Bool { PQgetisnull(handle, row, column) == 1 }

    func bytes(_ row: Int32, _ column: Int32) -> [UInt8] {
        let count = Int(PQgetlength(handle, row, column))
        guard count > 0, let pointer = PQgetvalue(handle, row, column) else { return [] }
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }

    func int64(_ row: Int32, _ column: Int32) -> Int64? {
        guard !isNull(row, column), PQgetlength(handle, row, column) == 8, let pointer = PQgetvalue(handle, row, column)
        else { return nil }
        return UnsafeRawPointer(pointer).loadUnaligned(as: Int64.self).bigEndian
    }

    func bool(_ row: Int32, _ column: Int32) -> Bool {
        guard !isNull(row, column), let pointer = PQgetvalue(handle, row, column) else { return false }
        return pointer.pointee != 0
    }

    func text(_ row: Int32, _ column: Int32) -> String? {
        isNull(row, column) ? nil : String(decoding: bytes(row, column), as: UTF8.self)
    }
}

/// A statement parameter, sent in binary format with its type declared at `PQprepare`.
enum PostgresValue {
    case bytes([UInt8])
    case int64(Int64)
    case text(String?)
    /// A one-dimensional array of `element` (a type OID below), each value binary or NULL.
    case array(element: UInt32, [[UInt8]?])

    /// The type's OID (pg_type.h: bytea 17, int8 20, text 25; their arrays 1001, 1016, 1009).
    static let byteaType: UInt32 = 17
    static let int8Type: UInt32 = 20
    static let textType: UInt32 = 25
    static let byteaArrayType: UInt32 = 1001
    static let int8ArrayType: UInt32 = 1016
    static let textArrayType: UInt32 = 1009

    /// An `int8[]` of `values`.
    static func int8Array(_ values: some Sequence<Int64>) -> PostgresValue {
        .array(element: int8Type, values.map { int64($0).binary })
    }

    /// A `text[]` of `values`.
    static func textArray(_ values: some Sequence<String>) -> PostgresValue {
        .array(element: textType, values.map { Array($0.utf8) })
    }

    /// A `bytea[]` of `values`.
    static func byteaArray(_ values: [[UInt8]]) -> PostgresValue {
        .array(element: byteaType, values)
    }

    /// The binary representation, nil for SQL NULL.
    var binary: [UInt8]? {
        switch self {
        case .bytes(let bytes): bytes
        case .int64(let value): withUnsafeBytes(of: value.bigEndian) { Array($0) }
        case .text(let text): text.map { Array($0.utf8) }
        case .array(let element, let values): Self.array(element, values)
        }
    }

    /// The binary array format (arrayfuncs.c, array_send): dimensions, whether any value is
    /// NULL, the element type, the length and lower bound (1), then each value as a 4-byte
    /// length (-1: NULL) and its bytes; an empty array has no dimension.
    private static func array(_ element: UInt32, _ values: [[UInt8]?]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(20 + values.reduce(0) { $0 + 4 + ($1?.count ?? 0) })
        func append(_ value: Int32) { withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) } }
        append(values.isEmpty ? 0 : 1)
        append(values.contains { $0 == nil } ? 1 : 0)
        append(Int32(bitPattern: element))
        guard !values.isEmpty else { return bytes }
        append(Int32(values.count))
        append(1)
        for value in values {
            if let value {
                append(Int32(value.count))
                bytes.append(contentsOf: value)
            } else {
                append(-1)
            }
        }
        return bytes
    }
}
