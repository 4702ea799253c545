public import APN

extension TokenStore {
    /// Forgets `devices`: their rows and the feedback recorded for them, in one transaction,
    /// as if never registered. Returns how many of them the store held.
    @discardableResult
    public func delete(_ devices: [Device]) throws(StoreError) -> Int {
        let deleteToken = try database.prepare("DELETE FROM tokens WHERE token = ?1", persistent: false)
        let deleteFeedback = try database.prepare("DELETE FROM feedback WHERE token = ?1", persistent: false)
        return try database.transaction { () throws(StoreError) -> Int in
            var deleted = 0
            for device in devices {
                deleteToken.reset()
                deleteToken.bind(1, device.token)
                try deleteToken.run()
                deleted += database.changes
                deleteFeedback.reset()
                deleteFeedback.bind(1, device.token)
                try deleteFeedback.run()
            }
            return deleted
        }
    }

    /// Forgets every inactive token deactivated before `time` (UNIX seconds), with the
    /// feedback recorded for it, in one transaction; active tokens are kept whatever their
    /// age. Returns how many were deleted.
    @discardableResult
    public func prune(inactiveBefore time: Int64) throws(StoreError) -> Int {
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
}

extension TokenStore {
    /// Runs `body` in one read transaction, so that what it reads in several statements is one
    /// snapshot (an export's tokens and feedback agree though a writer commits meanwhile).
    public func snapshot<T>(_ body: () throws -> T) throws -> T {
        try database.execute("BEGIN")
        defer { try? database.execute("COMMIT") }
        return try body()
    }
}
