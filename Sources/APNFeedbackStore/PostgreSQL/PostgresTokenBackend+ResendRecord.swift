/// The bridge's resend record on PostgreSQL (`bridge_resend`, schema 3): SQLiteResendRecord's
/// statements in PostgreSQL's words. The API is in BridgeStateStore+ResendRecord.swift.
extension PostgresTokenBackend {
    func prepareResendRecord() throws(StoreError) {
        let (bytea, int8, text) = (PostgresValue.byteaType, PostgresValue.int8Type, PostgresValue.textType)
        try connection.prepare("apn_resend_insert", """
            INSERT INTO bridge_resend (instance, serial, tenant, token, payload, expiry, priority, answer, recorded_at)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
            ON CONFLICT (instance, serial) DO UPDATE SET tenant = excluded.tenant, token = excluded.token,
                payload = excluded.payload, expiry = excluded.expiry, priority = excluded.priority,
                answer = excluded.answer, recorded_at = excluded.recorded_at
            """, types: [int8, int8, text, bytea, bytea, int8, int8, int8, int8])
        try connection.prepare(
            "apn_resend_answer", "UPDATE bridge_resend SET answer = $3 WHERE instance = $1 AND serial = $2",
            types: [int8, int8, int8])
        try connection.prepare(
            "apn_resend_delete", "DELETE FROM bridge_resend WHERE instance = $1 AND serial = $2", types: [int8, int8])
    }

    func applyResendChanges(_ changes: [BridgeStateStore.ResendChange]) throws(StoreError) {
        try connection.transaction { () throws(StoreError) in
            for change in changes {
                switch change {
                case .insert(let row):
                    try insertResendRow(row)
                case .answer(let instance, let serial, let answer):
                    try connection.run("apn_resend_answer", [.int64(instance), .int64(serial), .int64(answer)])
                case .delete(let instance, let serial):
                    try connection.run("apn_resend_delete", [.int64(instance), .int64(serial)])
                }
            }
        }
    }

    func insertResendRow(_ row: BridgeStateStore.ResendRow) throws(StoreError) {
        try checkTenant(row.tenant)
        try connection.run("apn_resend_insert", [
            .int64(row.instance), .int64(row.serial), .text(row.tenant), .bytes(row.token), .bytes(row.payload),
            .int64(Int64(row.expiry)), .int64(Int64(row.priority)), .int64(row.answer), .int64(row.recordedAt),
        ])
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
