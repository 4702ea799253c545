/// The SQLite statements behind the bridge's journal (`bridge_journal`, `bridge_journal_marks`,
/// schema 4): compiled once, run on the store's thread. The API is in BridgeStateStore+Journal.swift.
final class SQLiteJournal {
    private let database: SQLiteDatabase
    private let insertRow: SQLiteStatement
    private let markSent: SQLiteStatement  // both marks
    private let setAnswer: SQLiteStatement
    private let prune: SQLiteStatement
    private let selectRowsOf: SQLiteStatement
    private let selectMarksOf: SQLiteStatement

    init(_ database: SQLiteDatabase) throws(StoreError) {
        self.database = database
        insertRow = try database.prepare("""
            INSERT OR REPLACE INTO bridge_journal (instance, seq, tenant, token, payload, expiry, priority, answer, recorded_at)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, NULL, ?8)
            """)
        // A mark only moves forward; one not given stays.
        markSent = try database.prepare("""
            INSERT INTO bridge_journal_marks (instance, tenant, sent_through, answered_through) VALUES (?1, ?2, ?3, ?4)
            ON CONFLICT (instance, tenant) DO UPDATE SET
                sent_through = max(coalesce(sent_through, excluded.sent_through), coalesce(excluded.sent_through, sent_through)),
                answered_through = max(coalesce(answered_through, excluded.answered_through),
                    coalesce(excluded.answered_through, answered_through))
            """)
        setAnswer = try database.prepare("UPDATE bridge_journal SET answer = ?3 WHERE instance = ?1 AND seq = ?2")
        prune = try database.prepare("DELETE FROM bridge_journal WHERE instance = ?1 AND seq < ?2")
        selectRowsOf = try database.prepare("""
            SELECT instance, seq, token, payload, expiry, priority, answer, recorded_at FROM bridge_journal
            WHERE tenant = ?1 AND instance = ?2 ORDER BY instance, seq
            """)
        selectMarksOf = try database.prepare(
            "SELECT instance, sent_through, answered_through FROM bridge_journal_marks WHERE tenant = ?1 AND instance = ?2")
    }

    func apply(_ batch: BridgeStateStore.JournalBatch, instance: Int64) throws(StoreError) {
        try database.transaction { () throws(StoreError) in
            for row in batch.inserts { try insert(row) }
            for (tenant, marks) in batch.marks {
                markSent.reset()
                markSent.bind(1, instance)
                markSent.bind(2, tenant)
                markSent.bind(3, marks.sentThrough)
                markSent.bind(4, marks.answeredThrough)
                try markSent.run()
            }
            for (seq, answer) in batch.answers {
                setAnswer.reset()
                setAnswer.bind(1, instance)
                setAnswer.bind(2, seq)
                setAnswer.bind(3, answer)
                try setAnswer.run()
            }
            if let below = batch.pruneBelow {
                prune.reset()
                prune.bind(1, instance)
                prune.bind(2, below)
                try prune.run()
            }
        }
    }

    func insert(_ row: BridgeStateStore.JournalRow) throws(StoreError) {
        insertRow.reset()
        insertRow.bind(1, row.instance)
        insertRow.bind(2, row.seq)
        insertRow.bind(3, row.tenant)
        insertRow.bind(4, row.token)
        insertRow.bind(5, row.payload)
        insertRow.bind(6, Int64(row.expiry))
        insertRow.bind(7, Int64(row.priority))
        insertRow.bind(8, row.recordedAt)
        try insertRow.run()
    }

    /// What `instance` left for `tenant`.
    func leftover(tenant: String, instance: Int64) throws(StoreError) -> BridgeStateStore.JournalLeftover {
        let (rows, marks) = (selectRowsOf, selectMarksOf)
        var leftover = BridgeStateStore.JournalLeftover()
        rows.reset()
        defer { rows.reset() }
        rows.bind(1, tenant)
        rows.bind(2, instance)
        while try rows.step() {
            guard let owner = rows.int64(0), let seq = rows.int64(1),
                let expiry = rows.int64(4).flatMap({ UInt32(exactly: $0) }),
                let priority = rows.int64(5).flatMap({ UInt8(exactly: $0) }), let recordedAt = rows.int64(7)
            else { throw StoreError(.corrupt, "the token store holds a journal row this code could not have written") }
            leftover.rows.append(
                BridgeStateStore.JournalRow(
                    instance: owner, seq: seq, tenant: tenant, token: rows.bytes(2), payload: rows.bytes(3),
                    expiry: expiry, priority: priority, answer: rows.int64(6), recordedAt: recordedAt))
        }
        marks.reset()
        defer { marks.reset() }
        marks.bind(1, tenant)
        marks.bind(2, instance)
        while try marks.step() {
            guard let owner = marks.int64(0) else { continue }
            leftover.marks[owner] = BridgeStateStore.JournalMarks(sentThrough: marks.int64(1), answeredThrough: marks.int64(2))
        }
        return leftover
    }
}
