/// An error from the token store: what went wrong, in words a caller can act on, and the
/// SQLite result code behind it.
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
    }

    /// What kind of error this is.
    public let kind: Kind
    /// What happened and, where it helps, what to do.
    public let message: String
    /// SQLite's extended result code, when SQLite reported the error.
    public let resultCode: Int32?

    /// Creates an error.
    public init(_ kind: Kind, _ message: String, resultCode: Int32? = nil) {
        self.kind = kind
        self.message = message
        self.resultCode = resultCode
    }

    /// The message, with the result code when there is one.
    public var description: String {
        resultCode.map { "\(message) (SQLite \($0))" } ?? message
    }
}
