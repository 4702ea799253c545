import APNCore

extension SQLiteTokenBackend {
    func delete(_ tokens: [[UInt8]]) throws(StoreError) -> Int {
        let deleteToken = try database.prepare("DELETE FROM tokens WHERE token = ?1", persistent: false)
        let deleteFeedback = try database.prepare("DELETE FROM feedback WHERE token = ?1", persistent: false)
        return try database.transaction { () throws(StoreError) -> Int in
            var deleted = 0
            for token in tokens {
                deleteToken.reset()
                deleteToken.bind(1, token)
                try deleteToken.run()
                deleted += database.changes
                deleteFeedback.reset()
                deleteFeedback.bind(1, token)
                try deleteFeedback.run()
            }
            return deleted
        }
    }

    func prune(inactiveBefore time: Int64) throws(StoreError) -> Int {
        try database.transaction { () throws(StoreError) -> Int in
            let feedback = try database.prepare(
                """
                DELETE FROM feedback WHERE token IN
                    (SELECT token FROM tokens WHERE active = 0 AND deactivated_at < ?1)
                """, persistent: false)
            feedback.bind(1, time)
            try feedback.run()
            let tokens = try database.prepare(
                "DELETE FROM tokens WHERE active = 0 AND deactivated_at < ?1", persistent: false)
            tokens.bind(1, time)
            try tokens.run()
            return database.changes
        }
    }

    func snapshot<T>(_ body: () throws -> T) throws -> T {
        try database.execute("BEGIN")
        defer { try? database.execute("COMMIT") }
        return try body()
    }

    // MARK: the feedback outbox (SQLiteFeedbackOutbox.swift)

    func queueFeedback(_ items: some Sequence<BridgeStateStore.QueuedFeedback>) throws(StoreError) {
        try outbox.queue(items)
    }

    func pendingFeedback(tenant: String, limit: Int) throws(StoreError) -> [FeedbackEntry] {
        try outbox.pending(tenant: tenant, limit: limit)
    }

    func removeServedFeedback(tenant: String, _ served: some Sequence<FeedbackEntry>) throws(StoreError) -> Int {
        try outbox.remove(tenant: tenant, served)
    }

    func pendingFeedbackCount(tenant: String) throws(StoreError) -> Int {
        try outbox.count(tenant: tenant)
    }

    func claimFeedback(tenant: String, limit: Int, now: Int64, until: Int64) throws(StoreError) -> [FeedbackEntry] {
        try outbox.claim(tenant: tenant, limit: limit, now: now, until: until)
    }

    func releaseFeedback(tenant: String, _ entries: [FeedbackEntry]) throws(StoreError) {
        try outbox.release(tenant: tenant, entries)
    }
}
