import APNCore

/// The SQLite statements behind ``TokenStore``'s feedback outbox (`feedback_outbox`, schema 2):
/// compiled once, run on the store's thread. The public API and its guarantees are in
/// BridgeStateStore+FeedbackOutbox.swift.
final class SQLiteFeedbackOutbox {
    private let database: SQLiteDatabase
    private let queueRow: SQLiteStatement
    private let selectPending: SQLiteStatement
    private let deleteServed: SQLiteStatement
    private let countRows: SQLiteStatement
    private let claimRows: SQLiteStatement
    private let releaseRow: SQLiteStatement

    init(_ database: SQLiteDatabase) throws(StoreError) {
        self.database = database
        // A later 410 moves the row's time forward; an earlier one arriving late leaves it,
        // so the tuple served is the latest, as Apple's feedback service reported.
        queueRow = try database.prepare("""
            INSERT INTO feedback_outbox (tenant, token, time) VALUES (?1, ?2, ?3)
            ON CONFLICT (tenant, token) DO UPDATE SET time = max(feedback_outbox.time, excluded.time)
            """)
        selectPending = try database.prepare("""
            SELECT token, time FROM feedback_outbox WHERE tenant = ?1 ORDER BY time, token LIMIT ?2
            """)
        // Only the time that was served: a newer 410 that replaced it meanwhile stays queued.
        deleteServed = try database.prepare("""
            DELETE FROM feedback_outbox WHERE tenant = ?1 AND token = ?2 AND time = ?3
            """)
        countRows = try database.prepare("SELECT count(*) FROM feedback_outbox WHERE tenant = ?1")
        // Schema 4's claims: one server's claim keeps another from serving the same tuple.
        claimRows = try database.prepare("""
            UPDATE feedback_outbox SET claimed_until = ?3
            WHERE (tenant, token) IN (
                SELECT tenant, token FROM feedback_outbox
                WHERE tenant = ?1 AND (claimed_until IS NULL OR claimed_until <= ?4)
                ORDER BY time, token LIMIT ?2)
            RETURNING token, time
            """)
        releaseRow = try database.prepare("""
            UPDATE feedback_outbox SET claimed_until = NULL WHERE tenant = ?1 AND token = ?2 AND time = ?3
            """)
    }

    func claim(tenant: String, limit: Int, now: Int64, until: Int64) throws(StoreError) -> [FeedbackEntry] {
        try database.transaction { () throws(StoreError) -> [FeedbackEntry] in
            claimRows.reset()
            defer { claimRows.reset() }
            claimRows.bind(1, tenant)
            claimRows.bind(2, Int64(limit))
            claimRows.bind(3, until)
            claimRows.bind(4, now)
            return try entries(claimRows)
        }
    }

    func release(tenant: String, _ entries: [FeedbackEntry]) throws(StoreError) {
        try database.transaction { () throws(StoreError) in
            for entry in entries {
                releaseRow.reset()
                releaseRow.bind(1, tenant)
                releaseRow.bind(2, entry.device.token)
                releaseRow.bind(3, Int64(entry.unixTime))
                try releaseRow.run()
            }
        }
    }

    func queue(_ items: some Sequence<BridgeStateStore.QueuedFeedback>) throws(StoreError) {
        try database.transaction { () throws(StoreError) in
            for item in items {
                try checkTenant(item.tenant)
                queueRow.reset()
                queueRow.bind(1, item.tenant)
                queueRow.bind(2, item.entry.device.token)
                queueRow.bind(3, Int64(item.entry.unixTime))
                try queueRow.run()
            }
        }
    }

    func pending(tenant: String, limit: Int) throws(StoreError) -> [FeedbackEntry] {
        try checkTenant(tenant)
        guard limit >= 0 else {
            // SQLite reads a negative LIMIT as none: refuse it rather than serve everything.
            throw StoreError(.invalidValue, "a feedback limit must not be negative (got \(limit))")
        }
        selectPending.reset()
        // Reset however it ends: a statement left on a row holds a read snapshot, which
        // keeps WAL checkpoints from completing.
        defer { selectPending.reset() }
        selectPending.bind(1, tenant)
        selectPending.bind(2, Int64(limit))
        return try entries(selectPending)
    }

    /// The tuples `statement` steps through (`token, time`).
    private func entries(_ statement: SQLiteStatement) throws(StoreError) -> [FeedbackEntry] {
        var entries: [FeedbackEntry] = []
        while try statement.step() {
            let device = try storedDevice(statement.bytes(0), " in its feedback outbox")
            guard let time = statement.int64(1).flatMap({ UInt32(exactly: $0) }) else {
                throw StoreError(.corrupt, "the token store holds a feedback outbox time that is not UNIX seconds")
            }
            entries.append(FeedbackEntry(unixTime: time, device: device))
        }
        return entries
    }

    func remove(tenant: String, _ served: some Sequence<FeedbackEntry>) throws(StoreError) -> Int {
        try checkTenant(tenant)
        return try database.transaction { () throws(StoreError) -> Int in
            var removed = 0
            for entry in served {
                deleteServed.reset()
                deleteServed.bind(1, tenant)
                deleteServed.bind(2, entry.device.token)
                deleteServed.bind(3, Int64(entry.unixTime))
                try deleteServed.run()
                removed += database.changes
            }
            return removed
        }
    }

    func count(tenant: String) throws(StoreError) -> Int {
        try checkTenant(tenant)
        countRows.reset()
        defer { countRows.reset() }
        countRows.bind(1, tenant)
        guard try countRows.step() else { return 0 }
        return Int(countRows.int64(0) ?? 0)
    }
}
