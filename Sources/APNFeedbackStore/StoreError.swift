/// An error from the token store: what went wrong, in words a caller can act on, and the
/// SQLite result code or PostgreSQL SQLSTATE behind it.
public struct StoreError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of error this is.
    public enum Kind: Hashable, Sendable {
        /// Another connection holds the lock longer than the busy timeout allowed.
        case locked
        /// The file is not a SQLite database, or is damaged.
        case corrupt
        /// The file was written by a newer swift-apn: its schema version is above the one
        /// this code knows. Nothing was changed.
        case schemaTooNew(found: Int, supported: Int)
        /// The file could not be opened or created (missing folder, permissions).
        case cannotOpen
        /// The disk (or a quota) has no room for the write: SQLite's `SQLITE_FULL`, or
        /// ``TokenStore/checkWritable(freeBytes:)`` finding less free space than it asked for.
        case full
        /// A value given to the store is not usable (an empty token, say).
        case invalidValue
        /// Any other SQLite failure.
        case sqlite
        /// Any other PostgreSQL failure (``StoreError/sqlState`` says which).
        case postgres
    }

    /// What kind of error this is.
    public let kind: Kind
    /// What happened and, where it helps, what to do.
    public let message: String
    /// SQLite's extended result code, when SQLite reported the error.
    public let resultCode: Int32?
    /// PostgreSQL's SQLSTATE (`40001`, say), when the server reported the error.
    public let sqlState: String?

    /// Creates an error.
    public init(_ kind: Kind, _ message: String, resultCode: Int32? = nil, sqlState: String? = nil) {
        self.kind = kind
        self.message = message
        self.resultCode = resultCode
        self.sqlState = sqlState
    }

    /// The message, with the result code or SQLSTATE when there is one.
    public var description: String {
        if let resultCode { return "\(message) (SQLite \(resultCode))" }
        return sqlState.map { "\(message) (SQLSTATE \($0))" } ?? message
    }
}
