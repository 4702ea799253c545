/// The lease one `apn feedback-service` holds on a PostgreSQL store: a session-level
/// advisory lock (`pg_try_advisory_lock`) keyed by the store's database and schema, on a
/// connection of its own that does nothing else.
///
/// Why a session lock and not a lease row with an expiry: the server releases it the moment
/// the holder's session ends — a killed process's socket closes, so a standby takes over on
/// its next try, with no stale row to expire or clear by hand. A holder whose host vanishes
/// (no FIN) is found by TCP keepalives, set on both ends of this connection below, so its
/// lock goes within about ``deadPeerSeconds``. Why its own connection: the store's
/// connection runs transactions that roll back and may be reconnected; the lease must live
/// exactly as long as the process holds it.
final class PostgresPollLease {
    /// Idle seconds, probe interval and probes before either end drops a silent peer.
    static let keepalive = (idle: 10, interval: 5, count: 3)
    /// How long a vanished holder can keep the lock: idle + interval × count.
    static let deadPeerSeconds = keepalive.idle + keepalive.interval * keepalive.count

    /// The lease's key, apart from the migration lock's (PostgresSchema.storeKey).
    private static let key =
        "hashtextextended('apn-feedback-service:' || current_database() || '.' || coalesce(current_schema(), ''), 0)"

    private let connection: PostgresConnection

    /// Takes the lease on the store at `url` without waiting; nil when another session holds it.
    static func take(_ url: PostgresURL) throws(StoreError) -> PostgresPollLease? {
        let (idle, interval, count) = keepalive
        // libpq's own keepalives let the holder notice a dead server; application_name shows
        // the lease in pg_stat_activity.
        let leaseURL = url.adding(
            "keepalives=1&keepalives_idle=\(idle)&keepalives_interval=\(interval)&keepalives_count=\(count)"
                + "&application_name=apn-feedback-service-lease")
        let connection = try PostgresConnection(url: leaseURL, lockTimeout: .seconds(5))
        // The server's side: a holder gone silent loses the lock after deadPeerSeconds.
        try connection.execute("""
            SET tcp_keepalives_idle = \(idle); SET tcp_keepalives_interval = \(interval);
            SET tcp_keepalives_count = \(count)
            """)
        let taken = try connection.execute("SELECT pg_try_advisory_lock(\(key))", binary: true)
        guard taken.rows == 1, taken.bool(0, 0) else { return nil }
        return PostgresPollLease(connection)
    }

    private init(_ connection: PostgresConnection) {
        self.connection = connection
    }

    /// Throws unless this session still holds the lease (the server restarted, or the
    /// connection broke and another instance may have taken over).
    func confirm() throws(StoreError) {
        let held = try connection.execute(
            "SELECT count(*)::int8 FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid() AND granted",
            binary: true)
        guard held.rows == 1, (held.int64(0, 0) ?? 0) > 0 else {
            throw StoreError(.locked, "the feedback-service lease on \(connection.url) is no longer held")
        }
    }
}
