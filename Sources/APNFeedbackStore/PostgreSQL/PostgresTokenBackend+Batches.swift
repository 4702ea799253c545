import APNCore

/// Registrations and feedback in batches: each statement carries up to ``batchSize`` rows as
/// binary arrays (`unnest`), so a million tokens cost a few hundred round trips, not a
/// million. The rows end as the one-at-a-time rule would leave them.
extension PostgresTokenBackend {
    /// Rows a statement: large enough that the round trip is noise, small enough that a
    /// statement's arrays stay a few hundred KiB.
    static let batchSize = 10_000

    func prepareBatches() throws(StoreError) {
        try connection.prepare(
            "apn_registered_many", "SELECT token, registered_at::int8 FROM tokens WHERE token = ANY($1::bytea[])",
            types: [PostgresValue.byteaArrayType])
        // The recorded tuples (new (token, time) rows) are applied: deactivated ones set the
        // token inactive, every one moves last_feedback_at, as the SQLite statements do.
        try connection.prepare("apn_record_many", """
            WITH recorded AS (
                INSERT INTO feedback (token, time, read_at, applied)
                SELECT i.token, i.time, $4, i.applied FROM unnest($1::bytea[], $2::int8[], $3::text[]) AS i(token, time, applied)
                ON CONFLICT DO NOTHING
                RETURNING token, time, applied),
            applied AS (
                UPDATE tokens SET
                    active = tokens.active AND r.deactivated IS NULL,
                    deactivated_at = CASE WHEN r.deactivated IS NULL THEN tokens.deactivated_at
                        ELSE greatest(coalesce(tokens.deactivated_at, r.deactivated), r.deactivated) END,
                    last_feedback_at = greatest(coalesce(tokens.last_feedback_at, r.latest), r.latest)
                FROM (SELECT token, max(time) FILTER (WHERE applied = 'deactivated') AS deactivated, max(time) AS latest
                      FROM recorded WHERE applied <> 'unknown' GROUP BY token) AS r
                WHERE tokens.token = r.token)
            SELECT applied, count(*)::int8 FROM recorded GROUP BY applied
            """, types: [
                PostgresValue.byteaArrayType, PostgresValue.int8ArrayType, PostgresValue.textArrayType,
                PostgresValue.int8Type,
            ])
    }

    func upsert(_ registrations: [TokenStore.Registration]) throws(StoreError) -> Int {
        for chunk in Self.merged(registrations).chunks(of: Self.batchSize) {
            try connection.run("apn_upsert_many", [
                .byteaArray(chunk.map { $0.device.token }),
                .array(element: PostgresValue.textType, chunk.map { $0.topic.map { Array($0.utf8) } }),
                .int8Array(chunk.map(\.at)),
            ])
        }
        return registrations.count
    }

    /// One registration per token, in token order: the latest time, the last topic given.
    /// One statement's upsert cannot touch a row twice, and this is what upserting them one
    /// after another leaves. Token order: concurrent writers lock rows in the same order.
    static func merged(_ registrations: [TokenStore.Registration]) -> [TokenStore.Registration] {
        let order = registrations.indices.sorted {
            let (left, right) = (registrations[$0].device.token, registrations[$1].device.token)
            return left == right ? $0 < $1 : left.lexicographicallyPrecedes(right)
        }
        var merged: [TokenStore.Registration] = []
        merged.reserveCapacity(registrations.count)
        for index in order {
            let next = registrations[index]
            guard let last = merged.last, last.device.token == next.device.token else {
                merged.append(next)
                continue
            }
            merged[merged.count - 1] = TokenStore.Registration(
                device: last.device, topic: next.topic ?? last.topic, at: max(last.at, next.at))
        }
        return merged
    }

    func apply(_ entries: [FeedbackEntry], readAt: Int64, into summary: inout FeedbackApplication) throws(StoreError) {
        for chunk in entries.chunks(of: Self.batchSize) {
            // Each tuple judged against its token's registration by the one rule; the batch
            // changes no registration, and the serializable transaction keeps what this read.
            let tokens = chunk.map(\.device.token)
            let held = try connection.run("apn_registered_many", [.byteaArray(tokens)])
            var registered: [[UInt8]: Int64] = [:]
            for row in 0..<held.rows { registered[held.bytes(row, 0)] = held.int64(row, 1) }
            let verdicts = chunk.map {
                feedbackVerdict(registeredAt: registered[$0.device.token], feedbackTime: Int64($0.unixTime))
            }
            let counts = try connection.run("apn_record_many", [
                .byteaArray(tokens),
                .int8Array(chunk.map { Int64($0.unixTime) }),
                .textArray(verdicts.map(\.rawValue)),
                .int64(readAt),
            ])
            var recorded = 0
            for row in 0..<counts.rows {
                let count = Int(counts.int64(row, 1) ?? 0)
                recorded += count
                switch counts.text(row, 0).flatMap(FeedbackRecord.Outcome.init(rawValue:)) {
                case .deactivated?: summary.deactivated += count
                case .kept?: summary.kept += count
                case .unknown?: summary.unknown += count
                case nil: throw StoreError(.corrupt, "the token store \(connection.url) recorded a tuple with an unknown outcome")
                }
            }
            summary.read += chunk.count
            summary.duplicates += chunk.count - recorded
        }
    }
}

extension Array {
    /// Consecutive slices of at most `size` elements (none for an empty array).
    func chunks(of size: Int) -> [ArraySlice<Element>] {
        stride(from: 0, to: count, by: size).map { self[$0..<Swift.min($0 + size, count)] }
    }
}
