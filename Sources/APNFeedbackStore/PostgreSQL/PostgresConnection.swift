import APNSupport
import CPostgreSQL
import Foundation
internal import Glibc

/// One libpq connection (`PGconn`), closed when released. Statements are prepared once by
/// name and run with binary parameters and results. Not thread-safe: used from one thread
/// at a time, as ``TokenStore`` is.
final class PostgresConnection {
    private let handle: OpaquePointer
    /// The URL, for messages only (its password redacted).
    let url: PostgresURL
    /// Whether a transaction (``transaction(_:)``, ``readTransaction(_:)``) is open: nested
    /// ones run inside it rather than opening another.
    private(set) var inTransaction = false

    /// How often a write transaction is run again after a serialization failure or a
    /// deadlock before the failure is reported (``StoreError/Kind/locked``).
    static let attempts = 20

    /// Connects; libpq takes the password from the URL, `PGPASSWORD` or `~/.pgpass`.
    init(url: PostgresURL, lockTimeout: Duration) throws(StoreError) {
        self.url = url
        guard let connection = PQconnectdb(url.text) else {
            throw StoreError(.cannotOpen, "cannot connect to the token store \(url): out of memory")
        }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = Self.trimmed(PQerrorMessage(connection))
            PQfinish(connection)
            throw StoreError(.cannotOpen, "cannot connect to the token store \(url): \(message)")
        }
        handle = connection
        let milliseconds = lockTimeout.wholeMilliseconds
        // Quiet: a repeated CREATE ... IF NOT EXISTS notice would go to standard error.
        try execute("SET lock_timeout = \(max(1, milliseconds)); SET client_min_messages = warning")
    }

    deinit {
        PQfinish(handle)
    }

    /// Whether the server's session behind this connection has ended (a server restart, a
    /// network loss, `pg_terminate_backend`): libpq saw it fail. It is never reconnected —
    /// what the session held (its advisory locks) is gone with it.
    var isBroken: Bool { PQstatus(handle) == CONNECTION_BAD }

    /// Runs SQL without parameters: one or more statements, or one with `binary` results.
    @discardableResult
    func execute(_ sql: String, binary: Bool = false) throws(StoreError) -> PostgresResult {
        // PQexec takes several statements but answers in text; PQexecParams answers in
        // binary, one statement.
        try checked(binary ? PQexecParams(handle, sql, 0, nil, nil, nil, nil, 1) : PQexec(handle, sql), sql)
    }

    /// Prepares `sql` as `name` for ``run(_:_:)``, with one type per parameter.
    func prepare(_ name: String, _ sql: String, types: [UInt32]) throws(StoreError) {
        try checked(PQprepare(handle, name, sql, Int32(types.count), types), "PREPARE \(name)")
    }

    /// Runs the prepared statement `name` with `values`, binary in and out.
    @discardableResult
    func run(_ name: String, _ values: [PostgresValue]) throws(StoreError) -> PostgresResult {
        let binaries = values.map(\.binary)
        var buffer: [UInt8] = []
        var offsets: [Int] = []
        for binary in binaries {
            offsets.append(buffer.count)
            buffer.append(contentsOf: binary ?? [])
        }
        let lengths = binaries.map { Int32($0?.count ?? 0) }
        let formats = [Int32](repeating: 1, count: values.count)
        let result = buffer.withUnsafeBufferPointer { raw in
            let base = UnsafeRawPointer(raw.baseAddress ?? UnsafePointer(bitPattern: 1)!)
            let pointers: [UnsafePointer<CChar>?] = binaries.indices.map { index in
                binaries[index] == nil ? nil : (base + offsets[index]).assumingMemoryBound(to: CChar.self)
            }
            return PQexecPrepared(handle, name, Int32(values.count), pointers, lengths, formats, 1)
        }
        return try checked(result, name)
    }

    /// Runs `body` in one serializable transaction, run again (from the start) when the
    /// server reports a serialization failure (40001) or a deadlock (40P01): what the rule
    /// reads and writes then ends as if the writers had run one after another. `body` must
    /// be safe to run again. Rolled back when it throws.
    func transaction<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        if inTransaction { return try body() }
        var attempt = 1
        while true {
            do {
                return try once("BEGIN ISOLATION LEVEL SERIALIZABLE", body)
            } catch {
                // `body` and the statements around it throw StoreError only.
                let failure = error as? StoreError ?? StoreError(.postgres, "\(error)")
                guard failure.isRetriable, attempt < Self.attempts else { throw failure }
                attempt += 1
                // Jittered, growing: writers that collided do not collide again in step.
                usleep(UInt32.random(in: 1...UInt32(attempt)) * 1_000)
            }
        }
    }

    /// Runs `body` in one read-only snapshot (``TokenStore/snapshot(_:)``, listings).
    func readTransaction<T>(_ body: () throws -> T) throws -> T {
        if inTransaction { return try body() }
        return try once("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", body)
    }

    private func once<T, E: Error>(_ begin: String, _ body: () throws(E) -> T) throws -> T {
        try execute(begin)
        inTransaction = true
        defer { inTransaction = false }
        let value: T
        do {
            value = try body()
            try execute("COMMIT")
        } catch {
            // After a failed statement or COMMIT the transaction is aborted: end it, or
            // every later statement fails.
            _ = try? execute("ROLLBACK")
            throw error
        }
        return value
    }

    /// Calls `body` with each row `sql` returns, fetched through a cursor a few thousand at
    /// a time, so a million rows are not held at once.
    func stream(_ sql: String, _ body: (PostgresResult, Int32) throws -> Void) throws {
        try readTransaction {
            try execute("DECLARE apn_rows NO SCROLL CURSOR FOR \(sql)")
            defer { _ = try? execute("CLOSE apn_rows") }
            while true {
                let batch = try execute("FETCH 5000 FROM apn_rows", binary: true)
                guard batch.rows > 0 else { return }
                for row in 0..<batch.rows { try body(batch, row) }
            }
        }
    }

    @discardableResult
    private func checked(_ result: OpaquePointer?, _ context: String) throws(StoreError) -> PostgresResult {
        guard let result else {
            throw StoreError(.cannotOpen, "the token store \(url) failed: \(Self.trimmed(PQerrorMessage(handle)))")
        }
        let owned = PostgresResult(result)
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK: return owned
        default:
            let state = cpostgresql_sqlstate(result).map { String(cString: $0) }
            let message = Self.trimmed(PQresultErrorMessage(result))
            throw Self.error(state, "\(context.prefix(60)): \(message)", url)
        }
    }

    /// The typed error for a SQLSTATE.
    static func error(_ state: String?, _ message: String, _ url: PostgresURL) -> StoreError {
        switch state {
        case "40001", "40P01", "55P03":
            StoreError(.locked, "the token store \(url) is busy with other writers; \(message)", sqlState: state)
        case "53100":
            StoreError(.full, "the disk of the token store \(url) is full; \(message)", sqlState: state)
        case let state? where state.hasPrefix("08") || state.hasPrefix("28") || state.hasPrefix("57P"):
            StoreError(.cannotOpen, "the token store \(url) cannot be reached; \(message)", sqlState: state)
        case let state? where state.hasPrefix("42") || state.hasPrefix("XX"):
            StoreError(.corrupt, "the token store \(url) does not hold the schema this code wrote; \(message)", sqlState: state)
        default:
            StoreError(.postgres, "the token store \(url) failed; \(message)", sqlState: state)
        }
    }

    private static func trimmed(_ text: UnsafePointer<CChar>?) -> String {
        guard let text else { return "unknown error" }
        return String(cString: text).split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
    }
}

extension StoreError {
    /// A conflict with another writer that running the transaction again resolves.
    var isRetriable: Bool { sqlState == "40001" || sqlState == "40P01" }
}
