/// Bridges sharing a SQLite store (BridgeStateStore+BridgeInstances.swift): the registry, the
/// lock file beside the store, and the takeover of a dead bridge's rows.
extension SQLiteTokenBackend {
    func registerBridgeInstance(_ instance: Int64, startedAt: Int64) throws(StoreError) {
        let locks = try bridgeLocks()
        guard locks.tryLock(instance) else {
            throw StoreError(.locked, "another process holds bridge instance \(instance)'s lock")
        }
        try database.transaction { () throws(StoreError) in
            let statement = try database.prepare(
                "INSERT OR REPLACE INTO bridge_instances (instance, started_at) VALUES (?1, ?2)", persistent: false)
            statement.bind(1, instance)
            statement.bind(2, startedAt)
            try statement.run()
        }
    }

    func releaseBridgeInstance(_ instance: Int64) {
        bridgeLockFile?.unlock(instance)
    }

    /// A byte-range lock is held by the process until it releases it or ends: never lost.
    var bridgeLockLost: Bool { false }

    func takeOverDeadBridges(
        instance: Int64, tenants: [String], recordSince: Int64,
        plan: (String, [BridgeStateStore.ResendRow], BridgeStateStore.JournalLeftover) -> BridgeStateStore.BridgeTakeOver
    ) throws(StoreError) -> (instances: [Int64], byTenant: [String: BridgeStateStore.BridgeTakeOver]) {
        let locks = try bridgeLocks()
        var dead: [Int64] = []
        defer { for other in dead { locks.unlock(other) } }
        let byTenant = try database.transaction { () throws(StoreError) -> [String: BridgeStateStore.BridgeTakeOver] in
            let registered = try database.prepare("SELECT instance FROM bridge_instances WHERE instance <> ?1", persistent: false)
            registered.bind(1, instance)
            var candidates: [Int64] = []
            while try registered.step() { if let other = registered.int64(0) { candidates.append(other) } }
            registered.reset()
            // Held until the rows are gone: a second survivor checking at once sees it alive.
            dead = candidates.filter { locks.tryLock($0) }
            guard !dead.isEmpty else { return [:] }
            var byTenant: [String: BridgeStateStore.BridgeTakeOver] = [:]
            for tenant in tenants {
                var record: [BridgeStateStore.ResendRow] = []
                var leftover = BridgeStateStore.JournalLeftover()
                for other in dead {
                    record += try resend.rows(tenant: tenant, instance: other, recordedSince: recordSince)
                    let left = try journal.leftover(tenant: tenant, instance: other)
                    leftover.rows += left.rows
                    leftover.marks.merge(left.marks) { $1 }
                }
                guard !record.isEmpty || !leftover.rows.isEmpty else { continue }
                let taken = plan(tenant, record, leftover)
                for row in taken.record { try resend.insertRow(row) }
                try journal.insert(taken.journal)
                byTenant[tenant] = taken
            }
            for other in dead {
                for table in [
                    "bridge_resend", "bridge_journal", "bridge_journal_segments", "bridge_journal_answers",
                    "bridge_journal_marks", "bridge_instances",
                ] {
                    let delete = try database.prepare("DELETE FROM \(table) WHERE instance = ?1", persistent: false)
                    delete.bind(1, other)
                    try delete.run()
                }
            }
            return byTenant
        }
        return (dead, byTenant)
    }

    func peerResendRows(tenant: String, excluding instance: Int64, since: Int64) throws(StoreError) -> [BridgeStateStore.ResendRow] {
        try resend.peerRows(tenant: tenant, excluding: instance, recordedSince: since)
    }

    /// The lock file beside the store, opened once.
    private func bridgeLocks() throws(StoreError) -> BridgeLockFile {
        if let bridgeLockFile { return bridgeLockFile }
        let file = try BridgeLockFile(path: path + "-bridges")
        bridgeLockFile = file
        return file
    }
}
