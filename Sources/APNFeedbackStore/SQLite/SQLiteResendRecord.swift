/// The SQLite statements behind the bridge's resend record (`bridge_resend`, schema 3):
/// compiled once, run on the store's thread. The API is in TokenStore+ResendRecord.swift.
final class SQLiteResendRecord {
    private let database: SQLiteDatabase
    private let insertRow: SQLiteStatement
    private let updateAnswer: SQLiteStatement
    private let deleteRow: SQLiteStatement
    private let selectRows: SQLiteStatement
    private let deleteTenant: SQLiteStatement

    init(_ database: SQLiteDatabase) throws(StoreError) {
        self.database = database
        insertRow = try database.prepare("""
            INSERT OR REPLACE INTO bridge_resend
                (instance, serial, tenant, token, payload, expiry, priority, answer, recorded_at)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
            """)
        updateAnswer = try database.prepare("UPDATE bridge_resend SET answer = ?3 WHERE instance = ?1 AND serial = ?2")
        deleteRow = try database.prepare("DELETE FROM bridge_resend WHERE instance = ?1 AND serial = ?2")
        selectRows = try database.prepare("""
            SELECT instance, serial, token, payload, expiry, priority, answer, recorded_at FROM bridge_resend
            WHERE tenant = ?1 AND recorded_at >= ?2 ORDER BY recorded_at, instance, serial
            """)
        deleteTenant = try database.prepare("DELETE FROM bridge_resend WHERE tenant = ?1")
    }

    func apply(_ changes: [TokenStore.ResendChange]) throws(StoreError) {
        try database.transaction { () throws(StoreError) in
            for change in changes { try apply(change) }
        }
    }

    private func apply(_ change: TokenStore.ResendChange) throws(StoreError) {
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

    private func insert(_ row: TokenStore.ResendRow) throws(StoreError) {
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

    func rows(tenant: String, recordedSince: Int64) throws(StoreError) -> [TokenStore.ResendRow] {
        selectRows.reset()
        // Reset however it ends: a statement left on a row holds a read snapshot.
        defer { selectRows.reset() }
        selectRows.bind(1, tenant)
        selectRows.bind(2, recordedSince)
        var rows: [TokenStore.ResendRow] = []
        while try selectRows.step() {
            guard let instance = selectRows.int64(0), let serial = selectRows.int64(1),
                let expiry = selectRows.int64(4).flatMap({ UInt32(exactly: $0) }),
                let priority = selectRows.int64(5).flatMap({ UInt8(exactly: $0) }),
                let answer = selectRows.int64(6), let recordedAt = selectRows.int64(7)
            else { throw StoreError(.corrupt, "the token store holds a resend record row this code could not have written") }
            rows.append(
                TokenStore.ResendRow(
                    instance: instance, serial: serial, tenant: tenant, token: selectRows.bytes(2),
                    payload: selectRows.bytes(3), expiry: expiry, priority: priority, answer: answer, recordedAt: recordedAt))
        }
        return rows
    }

    func replace(tenant: String, with rows: [TokenStore.ResendRow]) throws(StoreError) {
        try database.transaction { () throws(StoreError) in try replaceRows(tenant: tenant, with: rows) }
    }

    /// ``replace(tenant:with:)`` inside a transaction the caller holds.
    func replaceRows(tenant: String, with rows: [TokenStore.ResendRow]) throws(StoreError) {
        deleteTenant.reset()
        deleteTenant.bind(1, tenant)
        try deleteTenant.run()
        for row in rows { try insert(row) }
    }
}
