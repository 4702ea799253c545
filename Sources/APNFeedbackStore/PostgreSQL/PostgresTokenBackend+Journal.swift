/// The bridge's journal on PostgreSQL (`bridge_journal`, `bridge_journal_marks`, schema 4):
/// SQLiteJournal's statements in PostgreSQL's words, a batch's rows as arrays in one
/// statement each (a group commit is one round trip a kind, not one a row). The API is in
/// TokenStore+Journal.swift.
extension PostgresTokenBackend {
    func prepareJournal() throws(StoreError) {
        typealias V = PostgresValue
        try connection.prepare("apn_journal_insert", """
            INSERT INTO bridge_journal (instance, seq, tenant, token, payload, expiry, priority, answer, recorded_at)
            SELECT r.instance, r.seq, r.tenant, r.token, r.payload, r.expiry, r.priority, NULL, r.recorded_at
            FROM unnest($1::int8[], $2::int8[], $3::text[], $4::bytea[], $5::bytea[], $6::int8[], $7::int8[], $8::int8[])
                AS r(instance, seq, tenant, token, payload, expiry, priority, recorded_at)
            ON CONFLICT (instance, seq) DO NOTHING
            """, types: [V.int8ArrayType, V.int8ArrayType, V.textArrayType, V.byteaArrayType, V.byteaArrayType,
                         V.int8ArrayType, V.int8ArrayType, V.int8ArrayType])
        // greatest() ignores NULLs: a mark not given stays.
        try connection.prepare("apn_journal_marks", """
            INSERT INTO bridge_journal_marks (instance, tenant, sent_through, answered_through) VALUES ($1, $2, $3, $4)
            ON CONFLICT (instance, tenant) DO UPDATE SET
                sent_through = greatest(bridge_journal_marks.sent_through, excluded.sent_through),
                answered_through = greatest(bridge_journal_marks.answered_through, excluded.answered_through)
            """, types: [V.int8Type, V.textType, V.int8Type, V.int8Type])
        try connection.prepare("apn_journal_answers", """
            UPDATE bridge_journal AS j SET answer = a.answer
            FROM unnest($2::int8[], $3::int8[]) AS a(seq, answer)
            WHERE j.instance = $1 AND j.seq = a.seq
            """, types: [V.int8Type, V.int8ArrayType, V.int8ArrayType])
        try connection.prepare(
            "apn_journal_prune", "DELETE FROM bridge_journal WHERE instance = $1 AND seq < $2",
            types: [V.int8Type, V.int8Type])
        try connection.prepare("apn_journal_rows", """
            SELECT instance::int8, seq::int8, token, payload, expiry::int8, priority::int8, answer::int8, recorded_at::int8
            FROM bridge_journal WHERE tenant = $1 AND instance <> $2 ORDER BY instance, seq
            """, types: [V.textType, V.int8Type])
        try connection.prepare("apn_journal_read_marks", """
            SELECT instance::int8, sent_through::int8, answered_through::int8 FROM bridge_journal_marks
            WHERE tenant = $1 AND instance <> $2
            """, types: [V.textType, V.int8Type])
        try connection.prepare(
            "apn_journal_drop_rows", "DELETE FROM bridge_journal WHERE tenant = $1 AND instance <> $2",
            types: [V.textType, V.int8Type])
        try connection.prepare(
            "apn_journal_drop_marks", "DELETE FROM bridge_journal_marks WHERE tenant = $1 AND instance <> $2",
            types: [V.textType, V.int8Type])
    }

    func applyJournal(_ batch: TokenStore.JournalBatch, instance: Int64) throws(StoreError) {
        try connection.transaction { () throws(StoreError) in
            try insertJournal(batch.inserts)
            for (tenant, marks) in batch.marks.sorted(by: { $0.key < $1.key }) {
                try connection.run("apn_journal_marks", [
                    .int64(instance), .text(tenant), Self.nullable(marks.sentThrough), Self.nullable(marks.answeredThrough),
                ])
            }
            for chunk in batch.answers.chunks(of: Self.batchSize) {
                try connection.run("apn_journal_answers", [
                    .int64(instance),
                    .array(element: PostgresValue.int8Type, chunk.map { PostgresValue.int64($0.seq).binary }),
                    .array(element: PostgresValue.int8Type, chunk.map { PostgresValue.int64($0.answer).binary }),
                ])
            }
            if let below = batch.pruneBelow {
                try connection.run("apn_journal_prune", [.int64(instance), .int64(below)])
            }
        }
    }

    /// Inserts `rows`, each under its own instance.
    private func insertJournal(_ rows: [TokenStore.JournalRow]) throws(StoreError) {
        let int8 = PostgresValue.int8Type
        for chunk in rows.chunks(of: Self.batchSize) {
            try connection.run("apn_journal_insert", [
                .array(element: int8, chunk.map { PostgresValue.int64($0.instance).binary }),
                .array(element: int8, chunk.map { PostgresValue.int64($0.seq).binary }),
                .array(element: PostgresValue.textType, chunk.map { Array($0.tenant.utf8) }),
                .array(element: PostgresValue.byteaType, chunk.map(\.token)),
                .array(element: PostgresValue.byteaType, chunk.map(\.payload)),
                .array(element: int8, chunk.map { PostgresValue.int64(Int64($0.expiry)).binary }),
                .array(element: int8, chunk.map { PostgresValue.int64(Int64($0.priority)).binary }),
                .array(element: int8, chunk.map { PostgresValue.int64($0.recordedAt).binary }),
            ])
        }
    }

    func journalLeftover(tenant: String, excluding instance: Int64) throws(StoreError) -> TokenStore.JournalLeftover {
        var leftover = TokenStore.JournalLeftover()
        let rows = try connection.run("apn_journal_rows", [.text(tenant), .int64(instance)])
        for row in 0..<rows.rows {
            guard let owner = rows.int64(row, 0), let seq = rows.int64(row, 1),
                let expiry = rows.int64(row, 4).flatMap({ UInt32(exactly: $0) }),
                let priority = rows.int64(row, 5).flatMap({ UInt8(exactly: $0) }), let recordedAt = rows.int64(row, 7)
            else { throw StoreError(.corrupt, "the token store holds a journal row this code could not have written") }
            leftover.rows.append(
                TokenStore.JournalRow(
                    instance: owner, seq: seq, tenant: tenant, token: rows.bytes(row, 2), payload: rows.bytes(row, 3),
                    expiry: expiry, priority: priority, answer: rows.int64(row, 6), recordedAt: recordedAt))
        }
        let marks = try connection.run("apn_journal_read_marks", [.text(tenant), .int64(instance)])
        for row in 0..<marks.rows {
            guard let owner = marks.int64(row, 0) else { continue }
            leftover.marks[owner] = TokenStore.JournalMarks(sentThrough: marks.int64(row, 1), answeredThrough: marks.int64(row, 2))
        }
        return leftover
    }

    /// An int8 parameter, NULL for nil (a NULL text value is NULL whatever its declared type).
    private static func nullable(_ value: Int64?) -> PostgresValue {
        value.map { .int64($0) } ?? .text(nil)
    }

    func takeOverBridgeState(
        tenant: String, instance: Int64, record: [TokenStore.ResendRow], journal: [TokenStore.JournalRow]
    ) throws(StoreError) {
        try connection.transaction { () throws(StoreError) in
            try connection.run("apn_resend_delete_tenant", [.text(tenant)])
            for row in record { try insertResendRow(row) }
            try connection.run("apn_journal_drop_rows", [.text(tenant), .int64(instance)])
            try connection.run("apn_journal_drop_marks", [.text(tenant), .int64(instance)])
            try insertJournal(journal)
        }
    }
}
