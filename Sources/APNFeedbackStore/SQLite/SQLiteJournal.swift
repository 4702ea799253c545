/// The SQLite statements behind the bridge's journal (`bridge_journal_segments`,
/// `bridge_journal_answers`, `bridge_journal_marks`, schema 5; `bridge_journal`, schema 4's,
/// only read): compiled once, run on the store's thread. The API is in
/// BridgeStateStore+Journal.swift.
final class SQLiteJournal {
    private let database: SQLiteDatabase
    private let insertSegment: SQLiteStatement
    private let markSent: SQLiteStatement  // both marks
    private let setAnswer: SQLiteStatement
    private let pruneSegments: SQLiteStatement
    private let pruneAnswers: SQLiteStatement
    private let selectSegmentsOf: SQLiteStatement
    private let selectAnswersOf: SQLiteStatement
    private let selectRowsOf: SQLiteStatement
    private let selectMarksOf: SQLiteStatement

    init(_ database: SQLiteDatabase) throws(StoreError) {
        self.database = database
        insertSegment = try database.prepare("""
            INSERT INTO bridge_journal_segments (instance, first_seq, last_seq, tenant, rows) VALUES (?1, ?2, ?3, ?4, ?5)
            """)
        // A mark only moves forward; one not given stays.
        markSent = try database.prepare("""
            INSERT INTO bridge_journal_marks (instance, tenant, sent_through, answered_through) VALUES (?1, ?2, ?3, ?4)
            ON CONFLICT (instance, tenant) DO UPDATE SET
                sent_through = max(coalesce(sent_through, excluded.sent_through), coalesce(excluded.sent_through, sent_through)),
                answered_through = max(coalesce(answered_through, excluded.answered_through),
                    coalesce(excluded.answered_through, answered_through))
            """)
        setAnswer = try database.prepare(
            "INSERT INTO bridge_journal_answers (instance, first_seq, last_seq, answers) VALUES (?1, ?2, ?3, ?4)")
        pruneSegments = try database.prepare("DELETE FROM bridge_journal_segments WHERE instance = ?1 AND last_seq < ?2")
        // Answers only of rows in segments that are gone: a segment kept keeps its rows' answers.
        pruneAnswers = try database.prepare("""
            DELETE FROM bridge_journal_answers WHERE instance = ?1
            AND last_seq < (SELECT coalesce(min(first_seq), ?2) FROM bridge_journal_segments WHERE instance = ?1)
            """)
        selectSegmentsOf = try database.prepare("""
            SELECT rows FROM bridge_journal_segments WHERE tenant = ?1 AND instance = ?2 ORDER BY first_seq
            """)
        selectAnswersOf = try database.prepare("SELECT answers FROM bridge_journal_answers WHERE instance = ?1 ORDER BY rowid")
        selectRowsOf = try database.prepare("""
            SELECT instance, seq, token, payload, expiry, priority, answer, recorded_at FROM bridge_journal
            WHERE tenant = ?1 AND instance = ?2 ORDER BY instance, seq
            """)
        selectMarksOf = try database.prepare(
            "SELECT instance, sent_through, answered_through FROM bridge_journal_marks WHERE tenant = ?1 AND instance = ?2")
    }

    func apply(_ batch: BridgeStateStore.JournalBatch, instance: Int64) throws(StoreError) {
        try database.transaction { () throws(StoreError) in
            try insert(batch.inserts)
            for (tenant, marks) in batch.marks {
                markSent.reset()
                markSent.bind(1, instance)
                markSent.bind(2, tenant)
                markSent.bind(3, marks.sentThrough)
                markSent.bind(4, marks.answeredThrough)
                try markSent.run()
            }
            if !batch.answers.isEmpty {
                setAnswer.reset()
                setAnswer.bind(1, instance)
                setAnswer.bind(2, batch.answers.lazy.map(\.seq).min())
                setAnswer.bind(3, batch.answers.lazy.map(\.seq).max())
                setAnswer.bind(4, JournalSegment.encodeAnswers(batch.answers))
                try setAnswer.run()
            }
            if let below = batch.pruneBelow {
                for statement in [pruneSegments, pruneAnswers] {
                    statement.reset()
                    statement.bind(1, instance)
                    statement.bind(2, below)
                    try statement.run()
                }
            }
        }
    }

    /// Inserts `rows` (unanswered) as one segment per instance and tenant, in their order.
    func insert(_ rows: [BridgeStateStore.JournalRow]) throws(StoreError) {
        var start = rows.startIndex
        while start < rows.endIndex {
            let first = rows[start]
            var end = start + 1
            while end < rows.endIndex, rows[end].instance == first.instance, rows[end].tenant == first.tenant { end += 1 }
            let segment = rows[start..<end]
            insertSegment.reset()
            insertSegment.bind(1, first.instance)
            insertSegment.bind(2, segment.lazy.map(\.seq).min() ?? first.seq)
            insertSegment.bind(3, segment.lazy.map(\.seq).max() ?? first.seq)
            insertSegment.bind(4, first.tenant)
            insertSegment.bind(5, JournalSegment.encode(segment))
            try insertSegment.run()
            start = end
        }
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
        let answers = try self.answers(of: instance)
        let segments = selectSegmentsOf
        segments.reset()
        defer { segments.reset() }
        segments.bind(1, tenant)
        segments.bind(2, instance)
        while try segments.step() {
            leftover.rows += try JournalSegment.decode(segments.bytes(0), instance: instance, tenant: tenant, answers: answers)
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

    /// The answers written for `instance`'s rows, by seq.
    private func answers(of instance: Int64) throws(StoreError) -> [Int64: Int64] {
        let statement = selectAnswersOf
        statement.reset()
        defer { statement.reset() }
        statement.bind(1, instance)
        var answers: [Int64: Int64] = [:]
        while try statement.step() { try JournalSegment.decodeAnswers(statement.bytes(0), into: &answers) }
        return answers
    }
}
