/// The PostgreSQL store's schema: the same tables, columns and meaning as SQLite's
/// (SQLiteSchema.swift), in PostgreSQL's types, and the same version numbers, kept in
/// `apn_schema`. Every migration runs at open in one transaction under an advisory lock
/// keyed by the database and schema, so hosts opening one store at once migrate it once.
enum PostgresSchema {
    /// The version this code writes (the SQLite schema's version of the same meaning).
    static let currentVersion = 4

    /// Migration `n` moves a database from version `n` to `n + 1`.
    static let migrations: [String] = [
        """
        CREATE TABLE tokens (
            token bytea PRIMARY KEY,
            topic text,
            registered_at bigint NOT NULL,
            active boolean NOT NULL,
            deactivated_at bigint,
            last_feedback_at bigint
        );
        CREATE INDEX tokens_by_state ON tokens (active, token);
        CREATE TABLE feedback (
            token bytea NOT NULL,
            time bigint NOT NULL,
            read_at bigint NOT NULL,
            applied text NOT NULL,
            PRIMARY KEY (token, time)
        );
        """,
        // 2: the feedback outbox, as in SQLite's version 2.
        """
        CREATE TABLE feedback_outbox (
            tenant text NOT NULL,
            token bytea NOT NULL,
            time bigint NOT NULL,
            PRIMARY KEY (tenant, token)
        );
        CREATE INDEX feedback_outbox_by_time ON feedback_outbox (tenant, time, token);
        """,
        // 3: the bridge's resend record, as in SQLite's version 3.
        """
        CREATE TABLE bridge_resend (
            instance bigint NOT NULL,
            serial bigint NOT NULL,
            tenant text NOT NULL,
            token bytea NOT NULL,
            payload bytea NOT NULL,
            expiry bigint NOT NULL,
            priority integer NOT NULL,
            answer bigint NOT NULL,
            recorded_at bigint NOT NULL,
            PRIMARY KEY (instance, serial)
        );
        CREATE INDEX bridge_resend_by_time ON bridge_resend (tenant, recorded_at);
        """,
        // 4: the bridge's journal, as in SQLite's version 4.
        """
        CREATE TABLE bridge_journal (
            instance bigint NOT NULL,
            seq bigint NOT NULL,
            tenant text NOT NULL,
            token bytea NOT NULL,
            payload bytea NOT NULL,
            expiry bigint NOT NULL,
            priority integer NOT NULL,
            answer bigint,
            recorded_at bigint NOT NULL,
            PRIMARY KEY (instance, seq)
        );
        CREATE TABLE bridge_journal_marks (
            instance bigint NOT NULL,
            tenant text NOT NULL,
            sent_through bigint,
            answered_through bigint,
            PRIMARY KEY (instance, tenant)
        );
        CREATE TABLE bridge_instances (
            instance bigint PRIMARY KEY,
            started_at bigint NOT NULL
        );
        ALTER TABLE feedback_outbox ADD COLUMN claimed_until bigint;

        """,
    ]

    /// The store's identity for advisory locks: its database and schema, hashed to 64 bits.
    static let storeKey = "hashtextextended('apn-token-store:' || current_database() || '.' || current_schema(), 0)"

    /// Brings the database to ``currentVersion``; refuses a newer one untouched.
    static func migrate(_ connection: PostgresConnection) throws(StoreError) {
        try connection.execute("BEGIN")
        do throws(StoreError) {
            try connection.execute("""
                SELECT pg_advisory_xact_lock(\(storeKey));
                CREATE TABLE IF NOT EXISTS apn_schema (version integer NOT NULL);
                """)
            let row = try connection.execute("SELECT version::int8 FROM apn_schema", binary: true)
            let version = row.rows > 0 ? row.int64(0, 0).map(Int.init) : nil
            if version == nil { try connection.execute("INSERT INTO apn_schema (version) VALUES (0)") }
            let found = version ?? 0
            guard found <= currentVersion else {
                throw StoreError(
                    .schemaTooNew(found: found, supported: currentVersion),
                    "the token store \(connection.url) was written by a newer swift-apn (schema \(found); this one knows up to \(currentVersion))")
            }
            for next in found..<currentVersion {
                try connection.execute(migrations[next])
                try connection.execute("UPDATE apn_schema SET version = \(next + 1)")
            }
            try connection.execute("COMMIT")
        } catch {
            _ = try? connection.execute("ROLLBACK")
            throw error
        }
    }
}
