/// The state `apn bridge` keeps across restarts, crashes and a fleet (#41), apart from the
/// token registry: the per-tenant feedback outbox (410s waiting to be served on the feedback
/// port), the resend record (what each instance forwarded and Apple answered, so that a
/// resend is never forwarded twice) and the journal (what was read and not yet answered).
/// It may share the registry's database — one SQLite file, one PostgreSQL schema — but is
/// its own type: the registry's users never see it, and its rules are documented beside it
/// (BridgeStateStore+FeedbackOutbox.swift, +ResendRecord, +Journal, +BridgeInstances).
///
/// Not thread-safe, as ``TokenStore``: the bridge uses one from its store writer thread.
public final class BridgeStateStore {
    /// The database behind the API; internal for the extensions beside this file.
    let backend: any BridgeStateBackend

    /// Opens the bridge's state at `location`: a `postgresql://` (or `postgres://`) URL, or a
    /// SQLite file path (created when missing, with ``TokenStore/Options/create``). The schema
    /// — the registry's tables too — is created or migrated at open.
    ///
    /// - Throws: ``StoreError``, as ``TokenStore/init(location:options:)``.
    public init(location: String, options: TokenStore.Options = TokenStore.Options()) throws(StoreError) {
        if let url = PostgresURL(location) {
            backend = try PostgresTokenBackend(url: url, options: options)
        } else {
            backend = try SQLiteTokenBackend(path: location, options: options)
        }
    }

    /// Checks that the state can take a write now (as ``TokenStore/checkWritable(freeBytes:)``).
    public func checkWritable(freeBytes: Int) throws(StoreError) {
        try backend.checkWritable(freeBytes: freeBytes)
    }
}
