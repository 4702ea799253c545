/// The lease that lets one feedback service poll a PostgreSQL store at a time, held
/// until released (or the process ends, however it ends: the server then drops it). Its own
/// type, not the registry's: it is a session lock on a connection of its own, and a
/// ``TokenStore`` never needs it.
///
/// A second service calls ``take(location:)`` every few seconds as a hot standby and
/// gets the lease on the first try after the holder's session ended: at once for a
/// killed process, within ``deadPeerSeconds`` for a holder whose host vanished.
public final class FeedbackPollLease {
    private let lease: PostgresPollLease

    /// The longest a holder whose host vanished keeps the lease (TCP keepalives).
    public static let deadPeerSeconds = PostgresPollLease.deadPeerSeconds

    /// Takes the lease on the PostgreSQL store at `location` without waiting; nil when
    /// another process holds it.
    ///
    /// - Throws: ``StoreError`` — `invalidValue` when `location` is not a PostgreSQL URL
    ///   (a SQLite store is locked by its file), `cannotOpen` when the server cannot be reached.
    public static func take(location: String) throws(StoreError) -> FeedbackPollLease? {
        guard let url = PostgresURL(location) else {
            throw StoreError(.invalidValue, "a poll lease is taken on a PostgreSQL store, not on \(location)")
        }
        return try PostgresPollLease.take(url).map(FeedbackPollLease.init)
    }

    private init(_ lease: PostgresPollLease) {
        self.lease = lease
    }

    /// Throws unless the lease is still held (its connection broke or the server
    /// restarted: another service may poll now).
    public func confirm() throws(StoreError) {
        try lease.confirm()
    }
}
