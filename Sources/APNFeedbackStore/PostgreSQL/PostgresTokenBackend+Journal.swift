/// The bridge's journal on PostgreSQL (`bridge_journal`, `bridge_journal_marks`, schema 4):
/// SQLiteJournal's statements in PostgreSQL's words, a batch's rows as arrays in one
/// statement each (a group commit is one round trip a kind, not one a row). The API is in
/// BridgeStateStore+Journal.swift.
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
    }

    func applyJournal(_ batch: BridgeStateStore.JournalBatch, instance: Int64) throws(StoreError) {
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
                    .int8Array(chunk.map(\.seq)),
                    .int8Array(chunk.map(\.answer)),
                ])
            }
            if let below = batch.pruneBelow {
                try connection.run("apn_journal_prune", [.int64(instance), .int64(below)])
            }
        }
    }

    /// The journal rows of a `SELECT instance, seq, token, payload, expiry, priority, answer, recorded_at`.
    func journalRows(_ result: PostgresResult, tenant: String) throws(StoreError) -> [BridgeStateStore.JournalRow] {
        var rows: [BridgeStateStore.JournalRow] = []
        for row in 0..<result.rows {
            guard let owner = result.int64(row, 0), let seq = result.int64(row, 1),
                let expiry = result.int64(row, 4).flatMap({ UInt32(exactly: $0) }),
                let priority = result.int64(row, 5).flatMap({ UInt8(exactly: $0) }), let recordedAt = result.int64(row, 7)
            else { throw StoreError(.corrupt, "the token store holds a journal row this code could not have written") }
            rows.append(
                BridgeStateStore.JournalRow(
                    instance: owner, seq: seq, tenant: tenant, token: result.bytes(row, 2), payload: result.bytes(row, 3),
                    expiry: expiry, priority: priority, answer: result.int64(row, 6), recordedAt: recordedAt))
        }
        return rows
    }

    /// Inserts `rows`, each under its own instance.
    func insertJournal(_ rows: [BridgeStateStore.JournalRow]) throws(StoreError) {
        for chunk in rows.chunks(of: Self.batchSize) {
            try connection.run("apn_journal_insert", [
                .int8Array(chunk.map(\.instance)), .int8Array(chunk.map(\.seq)), .textArray(chunk.map(\.tenant)),
                .byteaArray(chunk.map(\.token)), .byteaArray(chunk.map(\.payload)),
                .int8Array(chunk.map { Int64($0.expiry) }), .int8Array(chunk.map { Int64($0.priority) }),
                .int8Array(chunk.map(\.recordedAt)),
            ])
        }
    }

    /// An int8 parameter, NULL for nil (a NULL text value is NULL whatever its declared type).
    private static func nullable(_ value: Int64?) -> PostgresValue {
        value.map { .int64($0) } ?? .text(nil)
    }

}

/// Bridges sharing a PostgreSQL store (BridgeStateStore+BridgeInstances.swift): each holds a
/// session advisory lock keyed by its instance for as long as its connection lives; the
/// server drops it when the connection ends, however the process ended.
extension PostgresTokenBackend {
    func prepareBridgeInstances() throws(StoreError) {
        typealias V = PostgresValue
        // Keyed by the store (database and schema) and the instance: two stores on one
        // server, each with its bridge 1, are two locks.
        let key = "hashtextextended('apn-bridge:' || current_database() || '.' || current_schema() || ':' || $1::text, 0)"
        try connection.prepare("apn_bridge_lock", "SELECT pg_try_advisory_lock(\(key))", types: [V.int8Type])
        try connection.prepare("apn_bridge_try", "SELECT pg_try_advisory_xact_lock(\(key))", types: [V.int8Type])
        try connection.prepare("apn_bridge_unlock", "SELECT pg_advisory_unlock(\(key))", types: [V.int8Type])
        try connection.prepare("apn_bridge_register", """
            INSERT INTO bridge_instances (instance, started_at) VALUES ($1, $2)
            ON CONFLICT (instance) DO UPDATE SET started_at = excluded.started_at
            """, types: [V.int8Type, V.int8Type])
        try connection.prepare(
            "apn_bridge_others", "SELECT instance::int8 FROM bridge_instances WHERE instance <> $1 ORDER BY instance",
            types: [V.int8Type])
        try connection.prepare("apn_resend_of", """
            SELECT instance::int8, serial::int8, token, payload, expiry::int8, priority::int8, answer::int8, recorded_at::int8
            FROM bridge_resend WHERE tenant = $1 AND instance = $2 AND recorded_at >= $3 ORDER BY recorded_at, instance, serial
            """, types: [V.textType, V.int8Type, V.int8Type])
        try connection.prepare("apn_resend_peers", """
            SELECT instance::int8, serial::int8, token, payload, expiry::int8, priority::int8, answer::int8, recorded_at::int8
            FROM bridge_resend WHERE tenant = $1 AND instance <> $2 AND recorded_at >= $3 ORDER BY recorded_at, instance, serial
            """, types: [V.textType, V.int8Type, V.int8Type])
        try connection.prepare("apn_journal_rows_of", """
            SELECT instance::int8, seq::int8, token, payload, expiry::int8, priority::int8, answer::int8, recorded_at::int8
            FROM bridge_journal WHERE tenant = $1 AND instance = $2 ORDER BY seq
            """, types: [V.textType, V.int8Type])
        try connection.prepare("apn_journal_marks_of", """
            SELECT instance::int8, sent_through::int8, answered_through::int8 FROM bridge_journal_marks
            WHERE tenant = $1 AND instance = $2
            """, types: [V.textType, V.int8Type])
        for table in ["bridge_resend", "bridge_journal", "bridge_journal_marks", "bridge_instances"] {
            try connection.prepare("apn_drop_\(table)", "DELETE FROM \(table) WHERE instance = $1", types: [V.int8Type])
        }
    }

    func registerBridgeInstance(_ instance: Int64, startedAt: Int64) throws(StoreError) {
        guard try connection.run("apn_bridge_lock", [.int64(instance)]).bool(0, 0) else {
            throw StoreError(.locked, "another session holds bridge instance \(instance)'s lock")
        }
        try connection.transaction { () throws(StoreError) in
            _ = try connection.run("apn_bridge_register", [.int64(instance), .int64(startedAt)])
        }
    }

    func releaseBridgeInstance(_ instance: Int64) {
        _ = try? connection.run("apn_bridge_unlock", [.int64(instance)])
    }

    /// The session lock lives as long as the session: a broken connection has lost it.
    var bridgeLockLost: Bool { connection.isBroken }

    func takeOverDeadBridges(
        instance: Int64, tenants: [String], recordSince: Int64,
        plan: (String, [BridgeStateStore.ResendRow], BridgeStateStore.JournalLeftover) -> BridgeStateStore.BridgeTakeOver
    ) throws(StoreError) -> (instances: [Int64], byTenant: [String: BridgeStateStore.BridgeTakeOver]) {
        try connection.transaction { () throws(StoreError) -> (instances: [Int64], byTenant: [String: BridgeStateStore.BridgeTakeOver]) in
            let others = try connection.run("apn_bridge_others", [.int64(instance)])
            var dead: [Int64] = []
            for row in 0..<others.rows {
                guard let other = others.int64(row, 0) else { continue }
                // Held to the end of this transaction: a second survivor sees it alive.
                if try connection.run("apn_bridge_try", [.int64(other)]).bool(0, 0) { dead.append(other) }
            }
            guard !dead.isEmpty else { return ([], [:]) }
            var byTenant: [String: BridgeStateStore.BridgeTakeOver] = [:]
            for tenant in tenants {
                var record: [BridgeStateStore.ResendRow] = []
                var leftover = BridgeStateStore.JournalLeftover()
                for other in dead {
                    record += try resendRows("apn_resend_of", tenant: tenant, instance: other, since: recordSince)
                    let rows = try connection.run("apn_journal_rows_of", [.text(tenant), .int64(other)])
                    leftover.rows += try journalRows(rows, tenant: tenant)
                    let marks = try connection.run("apn_journal_marks_of", [.text(tenant), .int64(other)])
                    if marks.rows > 0 {
                        leftover.marks[other] = BridgeStateStore.JournalMarks(
                            sentThrough: marks.int64(0, 1), answeredThrough: marks.int64(0, 2))
                    }
                }
                guard !record.isEmpty || !leftover.rows.isEmpty else { continue }
                let taken = plan(tenant, record, leftover)
                try insertResendRows(taken.record)
                try insertJournal(taken.journal)
                byTenant[tenant] = taken
            }
            for other in dead {
                for table in ["bridge_resend", "bridge_journal", "bridge_journal_marks", "bridge_instances"] {
                    try connection.run("apn_drop_\(table)", [.int64(other)])
                }
            }
            return (dead, byTenant)
        }
    }

    func peerResendRows(tenant: String, excluding instance: Int64, since: Int64) throws(StoreError) -> [BridgeStateStore.ResendRow] {
        try resendRows("apn_resend_peers", tenant: tenant, instance: instance, since: since)
    }

    private func resendRows(_ statement: String, tenant: String, instance: Int64, since: Int64) throws(StoreError)
        -> [BridgeStateStore.ResendRow]
    {
        try decodeResendRows(try connection.run(statement, [.text(tenant), .int64(instance), .int64(since)]), tenant: tenant)
    }
}
