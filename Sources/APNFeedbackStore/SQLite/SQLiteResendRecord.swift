/// The SQLite statements behind the bridge's resend record (`bridge_resend`, schema 3):
/// compiled once, run on the store's thread. The API is in BridgeStateStore+ResendRecord.swift.
final class SQLiteResendRecord {
    private let database: SQLiteDatabase
    private let insertRow: SQLiteStatement
    private let updateAnswer: SQLiteStatement
    private let deleteRow: SQLiteStatement
    private let selectOfInstance: SQLiteStatement
    private let selectPeers: SQLiteStatement

    init(_ database: SQLiteDatabase) throws(StoreError) {
        self.database = database
        insertRow = try database.prepare("""
            INSERT OR REPLACE INTO bridge_resend
                (instance, serial, tenant, token, payload, expiry, priority, answer, recorded_at)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
            """)
        updateAnswer = try database.prepare("UPDATE bridge_resend SET answer = ?3 WHERE instance = ?1 AND serial = ?2")
        deleteRow = try database.prepare("DELETE FROM bridge_resend WHERE instance = ?1 AND serial = ?2")
        selectOfInstance = try database.prepare("""
            SELECT instance, serial, token, payload, expiry, priority, answer, recorded_at FROM bridge_resend
            WHERE tenant = ?1 AND instance = ?2 AND recorded_at >= ?3 ORDER BY recorded_at, instance, serial
            """)
        selectPeers = try database.prepare("""
            SELECT instance, serial, token, payload, expiry, priority, answer, recorded_at FROM bridge_resend
            WHERE tenant = ?1 AND instance <> ?2 AND recorded_at >= ?3 ORDER BY recorded_at, instance, serial
            """)
    }

    func apply(_ changes: [BridgeStateStore.ResendChange]) throws(StoreError) {
        try database.transaction { () throws(StoreError) in
            for change in changes { try apply(change) }
        }
    }

    private func apply(_ change: BridgeStateStore.ResendChange) throws(StoreError) {
        switch change {
        case .insert(let row):
            try insert(row)
        case .answer(let instance, let serial, let answer):
            updateAnswer.reset()
            updateAnswer.bind(1, instance)
            updateAnswer.bind(2, serial)
            updateAnswer.bind(3, answer)
            try updateAnswer.run()
        case .delete(let instance, let serial):
            deleteRow.reset()
            deleteRow.bind(1, instance)
            deleteRow.bind(2, serial)
            try deleteRow.run()
        }
    }

    /// Inserts (or replaces) one row, inside a transaction the caller holds.
    func insertRow(_ row: BridgeStateStore.ResendRow) throws(StoreError) {
        try insert(row)
    }

    /// `tenant`'s rows of `instance` recorded since `recordedSince`.
    func rows(tenant: String, instance: Int64, recordedSince: Int64) throws(StoreError) -> [BridgeStateStore.ResendRow] {
        selectOfInstance.reset()
        selectOfInstance.bind(2, instance)
        return try read(selectOfInstance, tenant: tenant, recordedSince: recordedSince)
    }

    /// `tenant`'s rows of instances other than `instance` recorded since `recordedSince`.
    func peerRows(tenant: String, excluding instance: Int64, recordedSince: Int64) throws(StoreError) -> [BridgeStateStore.ResendRow] {
        selectPeers.reset()
        selectPeers.bind(2, instance)
        return try read(selectPeers, tenant: tenant, recordedSince: recordedSince)
    }

    private func insert(_ row: BridgeStateStore.ResendRow) throws(StoreError) {
        try checkTenant(row.tenant)
        insertRow.reset()
        insertRow.bind(1, row.instance)
        insertRow.bind(2, row.serial)
        insertRow.bind(3, row.tenant)
        insertRow.bind(4, row.token)
        insertRow.bind(5, row.payload)
        insertRow.bind(6, Int64(row.expiry))
        insertRow.bind(7, Int64(row.priority))
        insertRow.bind(8, row.answer)
        insertRow.bind(9, row.recordedAt)
        try insertRow.run()
    }

    /// Steps `statement` (tenant ?1, the time at ?3) through its rows.
    private func read(_ statement: SQLiteStatement, tenant: String, recordedSince: Int64) throws(StoreError)
        -> [BridgeStateStore.ResendRow]
    {
        // Reset however it ends: a statement left on a row holds a read snapshot.
        defer { statement.reset() }
        statement.bind(1, tenant)
        statement.bind(3, recordedSince)
        var rows: [BridgeStateStore.ResendRow] = []
        while try statement.step() {
            guard let instance = statement.int64(0), let serial = statement.int64(1),
                let expiry = statement.int64(4).flatMap({ UInt32(exactly: $0) }),
                let priority = statement.int64(5).flatMap({ UInt8(exactly: $0) }),
                let answer = statement.int64(6), let recordedAt = statement.int64(7)
            else { throw StoreError(.corrupt, "the token store holds a resend record row this code could not have written") }
            rows.append(
                BridgeStateStore.ResendRow(
                    instance: instance, serial: serial, tenant: tenant, token: statement.bytes(2),
                    payload: statement.bytes(3), expiry: expiry, priority: priority, answer: answer, recordedAt: recordedAt))
        }
        return rows
    }
}
