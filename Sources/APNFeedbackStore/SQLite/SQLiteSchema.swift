/// The SQLite store's schema, versioned with SQLite's `user_version`: each migration moves a file
/// from one version to the next in one transaction, so a file is always at a version this
/// code or a newer one wrote.
enum SQLiteSchema {
    /// The version this code writes.
    static let currentVersion = 5

    /// Migration `n` moves a file from version `n` to `n + 1`.
    static let migrations: [String] = [
        """
        CREATE TABLE tokens (
            token BLOB PRIMARY KEY NOT NULL,
            topic TEXT,
            registered_at INTEGER NOT NULL,
            active INTEGER NOT NULL,
            deactivated_at INTEGER,
            last_feedback_at INTEGER
        ) WITHOUT ROWID;
        CREATE INDEX tokens_by_state ON tokens (active, token);
        CREATE TABLE feedback (
            token BLOB NOT NULL,
            time INTEGER NOT NULL,
            read_at INTEGER NOT NULL,
            applied TEXT NOT NULL,
            PRIMARY KEY (token, time)
        ) WITHOUT ROWID;
        """,
        // 2: the feedback outbox (BridgeStateStore+FeedbackOutbox.swift). One row per (tenant,
        // token), as Apple's feedback gave one tuple per token; the index serves a tenant's
        // oldest first without sorting all of its rows.
        """
        CREATE TABLE feedback_outbox (
            tenant TEXT NOT NULL,
            token BLOB NOT NULL,
            time INTEGER NOT NULL,
            PRIMARY KEY (tenant, token)
        ) WITHOUT ROWID;
        CREATE INDEX feedback_outbox_by_time ON feedback_outbox (tenant, time, token);
        """,
        // 3: the bridge's resend record (BridgeStateStore+ResendRecord.swift), kept so that a
        // restarted bridge answers a client's resends from it (#41). A row per entry, keyed
        // by the process that recorded it and its serial there.
        """
        CREATE TABLE bridge_resend (
            instance INTEGER NOT NULL,
            serial INTEGER NOT NULL,
            tenant TEXT NOT NULL,
            token BLOB NOT NULL,
            payload BLOB NOT NULL,
            expiry INTEGER NOT NULL,
            priority INTEGER NOT NULL,
            answer INTEGER NOT NULL,
            recorded_at INTEGER NOT NULL,
            PRIMARY KEY (instance, serial)
        ) WITHOUT ROWID;
        CREATE INDEX bridge_resend_by_time ON bridge_resend (tenant, recorded_at);
        """,
        // 4: the bridge's journal (BridgeStateStore+Journal.swift): every notification a bridge
        // read, kept from before it is forwarded until a while after its answer, so that
        // what a killed bridge read is forwarded by the next and what it wrote is never
        // written twice (#41). A row is sent when its seq is at or below its tenant's
        // sent mark, accepted when at or below its answered mark with no answer of its own.
        """
        CREATE TABLE bridge_journal (
            instance INTEGER NOT NULL,
            seq INTEGER NOT NULL,
            tenant TEXT NOT NULL,
            token BLOB NOT NULL,
            payload BLOB NOT NULL,
            expiry INTEGER NOT NULL,
            priority INTEGER NOT NULL,
            answer INTEGER,
            recorded_at INTEGER NOT NULL,
            PRIMARY KEY (instance, seq)
        ) WITHOUT ROWID;
        CREATE TABLE bridge_journal_marks (
            instance INTEGER NOT NULL,
            tenant TEXT NOT NULL,
            sent_through INTEGER,
            answered_through INTEGER,
            PRIMARY KEY (instance, tenant)
        ) WITHOUT ROWID;
        CREATE TABLE bridge_instances (
            instance INTEGER PRIMARY KEY,
            started_at INTEGER NOT NULL
        ) WITHOUT ROWID;
        ALTER TABLE feedback_outbox ADD COLUMN claimed_until INTEGER;

        """,
        // Schema 5: the journal in segments, one per tenant and group commit
        // (SQLite/JournalSegment.swift), and each commit's answers in one value beside them
        // (a stop answers every withdrawn notification at once); `bridge_journal` is
        // only read, for what a bridge of schema 4 left.
        """
        CREATE TABLE bridge_journal_segments (
            instance INTEGER NOT NULL,
            first_seq INTEGER NOT NULL,
            last_seq INTEGER NOT NULL,
            tenant TEXT NOT NULL,
            rows BLOB NOT NULL
        );
        CREATE INDEX bridge_journal_segments_by_instance ON bridge_journal_segments (instance, last_seq);
        CREATE TABLE bridge_journal_answers (
            instance INTEGER NOT NULL,
            first_seq INTEGER NOT NULL,
            last_seq INTEGER NOT NULL,
            answers BLOB NOT NULL
        );
        CREATE INDEX bridge_journal_answers_by_instance ON bridge_journal_answers (instance, last_seq);

        """,
    ]

    /// Brings the database to ``currentVersion``; refuses a newer file untouched.
    static func migrate(_ database: SQLiteDatabase) throws(StoreError) {
        let version = try userVersion(database)
        guard version <= currentVersion else {
            throw StoreError(
                .schemaTooNew(found: version, supported: currentVersion),
                "the token store was written by a newer swift-apn (schema \(version); this one knows up to \(currentVersion))")
        }
        for next in version..<currentVersion {
            try database.transaction { () throws(StoreError) in
                // Read again inside the write lock: another process may have migrated.
                guard try userVersion(database) == next else { return }
                try database.execute(migrations[next])
                try database.execute("PRAGMA user_version = \(next + 1)")
            }
        }
    }

    static func userVersion(_ database: SQLiteDatabase) throws(StoreError) -> Int {
        let statement = try database.prepare("PRAGMA user_version", persistent: false)
        guard try statement.step(), let version = statement.int64(0) else { return 0 }
        return Int(version)
    }
}
