import APNSupport
import CSQLite

/// One SQLite connection: opened in WAL mode with a busy timeout, closed when released.
/// Not thread-safe (SQLite is opened without its own mutex): used from one thread at a
/// time, as ``TokenStore`` is.
final class SQLiteDatabase {
    let handle: OpaquePointer

    /// Opens (creating when `create`) the database at `path`.
    init(path: String, create: Bool, busyTimeout: Duration) throws(StoreError) {
        var opened: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0) | SQLITE_OPEN_NOMUTEX
        let result = sqlite3_open_v2(path, &opened, flags, nil)
        guard result == SQLITE_OK, let opened else {
            let message = opened.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            if let opened { sqlite3_close_v2(opened) }
            throw StoreError(.cannotOpen, "cannot open the token store \(path): \(message)", resultCode: result)
        }
        handle = opened
        sqlite3_extended_result_codes(handle, 1)
        sqlite3_busy_timeout(handle, Int32(clamping: busyTimeout.wholeMilliseconds))
    }

    deinit {
        sqlite3_close_v2(handle)
    }

    /// Runs SQL without results (one or more statements).
    func execute(_ sql: String) throws(StoreError) {
        var message: UnsafeMutablePointer<CChar>?
        let result = sqlite3_exec(handle, sql, nil, nil, &message)
        let text = message.map { String(cString: $0) }
        sqlite3_free(message)
        guard result == SQLITE_OK else { throw error(result, text ?? "failed: \(sql)") }
    }

    /// Compiles a statement: `persistent` for one kept to run many times.
    func prepare(_ sql: String, persistent: Bool = true) throws(StoreError) -> SQLiteStatement {
        var statement: OpaquePointer?
        let flags = persistent ? UInt32(SQLITE_PREPARE_PERSISTENT) : 0
        let result = sqlite3_prepare_v3(handle, sql, -1, flags, &statement, nil)
        guard result == SQLITE_OK, let statement else { throw error(result, "cannot prepare \(sql)") }
        return SQLiteStatement(statement, database: self)
    }

    /// Runs `body` in one transaction (`BEGIN IMMEDIATE`: the write lock is taken at once,
    /// so a busy writer waits here, not halfway); rolled back when it throws.
    func transaction<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        try execute("BEGIN IMMEDIATE")
        let value: T
        do {
            value = try body()
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
        do {
            try execute("COMMIT")
        } catch {
            // A failed COMMIT leaves the transaction open: every later BEGIN would fail.
            try? execute("ROLLBACK")
            throw error
        }
        return value
    }

    /// Rows the last statement changed.
    var changes: Int { Int(sqlite3_changes(handle)) }

    /// The typed error for a SQLite result code.
    func error(_ result: Int32, _ context: String) -> StoreError {
        let detail = String(cString: sqlite3_errmsg(handle))
        // sqlite3_exec's own message is errmsg's: said once, not "file is not a database:
        // file is not a database".
        let message = context.hasSuffix(detail) ? context : "\(context): \(detail)"
        switch result & 0xFF {
        case SQLITE_BUSY, SQLITE_LOCKED:
            return StoreError(.locked, "the token store is locked by another process; \(message)", resultCode: result)
        case SQLITE_CORRUPT, SQLITE_NOTADB:
            return StoreError(.corrupt, "the token store is not a usable SQLite database; \(message)", resultCode: result)
        case SQLITE_CANTOPEN:
            return StoreError(.cannotOpen, message, resultCode: result)
        case SQLITE_FULL:
            return StoreError(.full, "the disk holding the token store is full; \(message)", resultCode: result)
        default:
            return StoreError(.sqlite, message, resultCode: result)
        }
    }
}
