import APNCore

extension PostgresTokenBackend {
    func prepareMaintenance() throws(StoreError) {
        let (bytea, int8, text) = (PostgresValue.byteaType, PostgresValue.int8Type, PostgresValue.textType)
        try connection.prepare("apn_delete_token", "DELETE FROM tokens WHERE token = $1", types: [bytea])
        try connection.prepare("apn_delete_feedback", "DELETE FROM feedback WHERE token = $1", types: [bytea])
        try connection.prepare("apn_prune_feedback", """
            DELETE FROM feedback WHERE token IN (SELECT token FROM tokens WHERE NOT active AND deactivated_at < $1)
            """, types: [int8])
        try connection.prepare(
            "apn_prune_tokens", "DELETE FROM tokens WHERE NOT active AND deactivated_at < $1", types: [int8])
        // The outbox: a later 410 moves the row's time forward, an earlier one arriving late
        // leaves it; only the time served is removed (SQLiteFeedbackOutbox.swift).
        try connection.prepare("apn_queue", """
            INSERT INTO feedback_outbox (tenant, token, time) VALUES ($1, $2, $3)
            ON CONFLICT (tenant, token) DO UPDATE SET time = greatest(feedback_outbox.time, excluded.time)
            """, types: [text, bytea, int8])
        try connection.prepare("apn_pending", """
            SELECT token, time::int8 FROM feedback_outbox WHERE tenant = $1 ORDER BY time, token LIMIT $2
            """, types: [text, int8])
        try connection.prepare(
            "apn_remove_served", "DELETE FROM feedback_outbox WHERE tenant = $1 AND token = $2 AND time = $3",
            types: [text, bytea, int8])
        try connection.prepare(
            "apn_pending_count", "SELECT count(*)::int8 FROM feedback_outbox WHERE tenant = $1", types: [text])
        // Claims (schema 4): rows another server is claiming this instant are skipped, not waited for.
        try connection.prepare("apn_claim", """
            UPDATE feedback_outbox AS f SET claimed_until = $3
            FROM (SELECT tenant, token FROM feedback_outbox
                  WHERE tenant = $1 AND (claimed_until IS NULL OR claimed_until <= $4)
                  ORDER BY time, token LIMIT $2 FOR UPDATE SKIP LOCKED) AS c
            WHERE f.tenant = c.tenant AND f.token = c.token
            RETURNING f.token, f.time::int8
            """, types: [text, int8, int8, int8])
        try connection.prepare(
            "apn_release", "UPDATE feedback_outbox SET claimed_until = NULL WHERE tenant = $1 AND token = $2 AND time = $3",
            types: [text, bytea, int8])
    }

    func delete(_ tokens: [[UInt8]]) throws(StoreError) -> Int {
        try connection.transaction { () throws(StoreError) -> Int in
            var deleted = 0
            for token in tokens {
                deleted += try connection.run("apn_delete_token", [.bytes(token)]).changes
                try connection.run("apn_delete_feedback", [.bytes(token)])
            }
            return deleted
        }
    }

    func prune(inactiveBefore time: Int64) throws(StoreError) -> Int {
        try connection.transaction { () throws(StoreError) -> Int in
            try connection.run("apn_prune_feedback", [.int64(time)])
            return try connection.run("apn_prune_tokens", [.int64(time)]).changes
        }
    }

    func snapshot<T>(_ body: () throws -> T) throws -> T {
        try connection.readTransaction(body)
    }

    func checkWritable(freeBytes: Int) throws(StoreError) {
        // A write taken and rolled back: the server reachable, the login allowed to write,
        // the schema's row not locked past the timeout. The server's disk is not ours to test.
        try connection.execute("BEGIN")
        do {
            try connection.execute("UPDATE apn_schema SET version = version")
        } catch {
            _ = try? connection.execute("ROLLBACK")
            throw error
        }
        try connection.execute("ROLLBACK")
    }

    // MARK: the feedback outbox

    func queueFeedback(_ items: some Sequence<BridgeStateStore.QueuedFeedback>) throws(StoreError) {
        let items = Array(items)
        try connection.transaction { () throws(StoreError) in
            for item in items {
                try checkTenant(item.tenant)
                try connection.run("apn_queue", [
                    .text(item.tenant), .bytes(item.entry.device.token), .int64(Int64(item.entry.unixTime)),
                ])
            }
        }
    }

    func pendingFeedback(tenant: String, limit: Int) throws(StoreError) -> [FeedbackEntry] {
        try checkTenant(tenant)
        guard limit >= 0 else {
            throw StoreError(.invalidValue, "a feedback limit must not be negative (got \(limit))")
        }
        return try feedbackEntries(try connection.run("apn_pending", [.text(tenant), .int64(Int64(limit))]))
    }

    /// The tuples of a `SELECT token, time` (or `RETURNING token, time`) on the outbox.
    private func feedbackEntries(_ result: PostgresResult) throws(StoreError) -> [FeedbackEntry] {
        var entries: [FeedbackEntry] = []
        entries.reserveCapacity(Int(result.rows))
        for row in 0..<result.rows {
            let device = try storedDevice(result.bytes(row, 0), " in its feedback outbox")
            guard let time = result.int64(row, 1).flatMap({ UInt32(exactly: $0) }) else {
                throw StoreError(.corrupt, "the token store holds a feedback outbox time that is not UNIX seconds")
            }
            entries.append(FeedbackEntry(unixTime: time, device: device))
        }
        return entries
    }

    func removeServedFeedback(tenant: String, _ served: some Sequence<FeedbackEntry>) throws(StoreError) -> Int {
        try checkTenant(tenant)
        let served = Array(served)
        return try connection.transaction { () throws(StoreError) -> Int in
            var removed = 0
            for entry in served {
                removed += try connection.run("apn_remove_served", [
                    .text(tenant), .bytes(entry.device.token), .int64(Int64(entry.unixTime)),
                ]).changes
            }
            return removed
        }
    }

    func claimFeedback(tenant: String, limit: Int, now: Int64, until: Int64) throws(StoreError) -> [FeedbackEntry] {
        try connection.transaction { () throws(StoreError) -> [FeedbackEntry] in
            try feedbackEntries(
                try connection.run("apn_claim", [.text(tenant), .int64(Int64(limit)), .int64(until), .int64(now)]))
        }
    }

    func releaseFeedback(tenant: String, _ entries: [FeedbackEntry]) throws(StoreError) {
        try connection.transaction { () throws(StoreError) in
            for entry in entries {
                try connection.run("apn_release", [.text(tenant), .bytes(entry.device.token), .int64(Int64(entry.unixTime))])
            }
        }
    }

    func pendingFeedbackCount(tenant: String) throws(StoreError) -> Int {
        try checkTenant(tenant)
        return Int(try connection.run("apn_pending_count", [.text(tenant)]).int64(0, 0) ?? 0)
    }
}
