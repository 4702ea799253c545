/// The bridge's resend record on PostgreSQL (`bridge_resend`, schema 3): SQLiteResendRecord's
/// statements in PostgreSQL's words, a run of changes of one kind as arrays in one statement
/// (`unnest`, as the journal's): a change a round trip cost the server ~8 µs of CPU a
/// forwarded notification, and a bridge taking over a dead one's record of 300,000 rows 24 s
/// before it served (#45). The API is in BridgeStateStore+ResendRecord.swift.
extension PostgresTokenBackend {
    func prepareResendRecord() throws(StoreError) {
        typealias V = PostgresValue
        try connection.prepare("apn_resend_insert_many", """
            INSERT INTO bridge_resend (instance, serial, tenant, token, payload, expiry, priority, answer, recorded_at)
            SELECT r.instance, r.serial, r.tenant, r.token, r.payload, r.expiry, r.priority, r.answer, r.recorded_at
            FROM unnest($1::int8[], $2::int8[], $3::text[], $4::bytea[], $5::bytea[], $6::int8[], $7::int8[], $8::int8[],
                $9::int8[]) AS r(instance, serial, tenant, token, payload, expiry, priority, answer, recorded_at)
            ON CONFLICT (instance, serial) DO UPDATE SET tenant = excluded.tenant, token = excluded.token,
                payload = excluded.payload, expiry = excluded.expiry, priority = excluded.priority,
                answer = excluded.answer, recorded_at = excluded.recorded_at
            """, types: [V.int8ArrayType, V.int8ArrayType, V.textArrayType, V.byteaArrayType, V.byteaArrayType,
                         V.int8ArrayType, V.int8ArrayType, V.int8ArrayType, V.int8ArrayType])
        try connection.prepare("apn_resend_answer_many", """
            UPDATE bridge_resend AS r SET answer = a.answer
            FROM unnest($2::int8[], $3::int8[]) AS a(serial, answer)
            WHERE r.instance = $1 AND r.serial = a.serial
            """, types: [V.int8Type, V.int8ArrayType, V.int8ArrayType])
        try connection.prepare(
            "apn_resend_delete_many", "DELETE FROM bridge_resend WHERE instance = $1 AND serial = ANY($2::int8[])",
            types: [V.int8Type, V.int8ArrayType])
    }

    func applyResendChanges(_ changes: [BridgeStateStore.ResendChange]) throws(StoreError) {
        try connection.transaction { () throws(StoreError) in
            for run in Self.runs(of: changes) {
                switch run {
                case .inserts(let rows):
                    try insertResendRows(rows)
                case .answers(let instance, let serials, let answers):
                    try connection.run("apn_resend_answer_many", [.int64(instance), .int8Array(serials), .int8Array(answers)])
                case .deletes(let instance, let serials):
                    try connection.run("apn_resend_delete_many", [.int64(instance), .int8Array(serials)])
                }
            }
        }
    }

    /// Inserts `rows` (each replacing a row of its instance and serial), a chunk of
    /// ``batchSize`` a statement.
    func insertResendRows(_ rows: [BridgeStateStore.ResendRow]) throws(StoreError) {
        for row in rows { try checkTenant(row.tenant) }
        for chunk in rows.chunks(of: Self.batchSize) {
            try connection.run("apn_resend_insert_many", [
                .int8Array(chunk.map(\.instance)), .int8Array(chunk.map(\.serial)), .textArray(chunk.map(\.tenant)),
                .byteaArray(chunk.map(\.token)), .byteaArray(chunk.map(\.payload)),
                .int8Array(chunk.map { Int64($0.expiry) }), .int8Array(chunk.map { Int64($0.priority) }),
                .int8Array(chunk.map(\.answer)), .int8Array(chunk.map(\.recordedAt)),
            ])
        }
    }

    /// A record row's key.
    struct RowKey: Hashable {
        let instance: Int64
        let serial: Int64
    }

    /// A run of consecutive changes one statement applies as they would one by one.
    enum ResendChangeRun: Equatable {
        case inserts([BridgeStateStore.ResendRow])
        case answers(instance: Int64, serials: [Int64], answers: [Int64])
        case deletes(instance: Int64, serials: [Int64])
    }

    /// `changes` in order as runs of one kind (answers and deletes of one instance). A run
    /// ends before a row it already touches (an insert or answer of the same instance and
    /// serial): one statement affects a row once (`ON CONFLICT DO UPDATE` refuses a second
    /// time, and an `UPDATE … FROM` would take either value), while the changes apply in order.
    static func runs(of changes: [BridgeStateStore.ResendChange]) -> [ResendChangeRun] {
        var runs: [ResendChangeRun] = []
        var current: ResendChangeRun?
        var touched: Set<RowKey> = []
        func close() {
            if let run = current { runs.append(run) }
            current = nil
            touched.removeAll(keepingCapacity: true)
        }
        for change in changes {
            switch change {
            case .insert(let row):
                let key = RowKey(instance: row.instance, serial: row.serial)
                if case .inserts(var rows)? = current, touched.insert(key).inserted {
                    current = nil  // `rows` alone holds the array: appended in place
                    rows.append(row)
                    current = .inserts(rows)
                } else {
                    close()
                    touched.insert(key)
                    current = .inserts([row])
                }
            case .answer(let instance, let serial, let answer):
                let key = RowKey(instance: instance, serial: serial)
                if case .answers(instance, var serials, var answers)? = current, touched.insert(key).inserted {
                    current = nil
                    serials.append(serial)
                    answers.append(answer)
                    current = .answers(instance: instance, serials: serials, answers: answers)
                } else {
                    close()
                    touched.insert(key)
                    current = .answers(instance: instance, serials: [serial], answers: [answer])
                }
            case .delete(let instance, let serial):
                // Deleting a row twice deletes it once: no need to end the run.
                if case .deletes(instance, var serials)? = current {
                    current = nil
                    serials.append(serial)
                    current = .deletes(instance: instance, serials: serials)
                } else {
                    close()
                    current = .deletes(instance: instance, serials: [serial])
                }
            }
        }
        close()
        return runs
    }

    /// The record rows of a `SELECT instance, serial, token, payload, expiry, priority, answer, recorded_at`.
    func decodeResendRows(_ result: PostgresResult, tenant: String) throws(StoreError) -> [BridgeStateStore.ResendRow] {
        var rows: [BridgeStateStore.ResendRow] = []
        rows.reserveCapacity(Int(result.rows))
        for row in 0..<result.rows {
            guard let instance = result.int64(row, 0), let serial = result.int64(row, 1),
                let expiry = result.int64(row, 4).flatMap({ UInt32(exactly: $0) }),
                let priority = result.int64(row, 5).flatMap({ UInt8(exactly: $0) }),
                let answer = result.int64(row, 6), let recordedAt = result.int64(row, 7)
            else { throw StoreError(.corrupt, "the token store holds a resend record row this code could not have written") }
            rows.append(
                BridgeStateStore.ResendRow(
                    instance: instance, serial: serial, tenant: tenant, token: result.bytes(row, 2),
                    payload: result.bytes(row, 3), expiry: expiry, priority: priority, answer: answer, recordedAt: recordedAt))
        }
        return rows
    }
}
