import APNCore

/// The token store in a PostgreSQL database that several hosts share. Every write is one
/// serializable transaction, run again on a serialization failure
/// (``PostgresConnection/transaction(_:)``): a registration and a feedback tuple for one
/// token committed at once by two hosts end as Apple's rule says, whichever commits first.
/// Upserts and `ON CONFLICT DO NOTHING` make a batch applied twice change nothing. Batches
/// go to the server as arrays, many rows a statement (PostgresTokenBackend+Batches.swift).
final class PostgresTokenBackend: TokenRegistryBackend, BridgeStateBackend {
    /// Internal for the extensions beside this file.
    let connection: PostgresConnection

    private typealias Types = PostgresValue
    private static let columns = "token, topic, registered_at::int8, active, deactivated_at::int8, last_feedback_at::int8"

    init(url: PostgresURL, options: TokenStore.Options) throws(StoreError) {
        connection = try PostgresConnection(url: url, lockTimeout: options.busyTimeout)
        try PostgresSchema.migrate(connection)
        let (bytea, int8) = (Types.byteaType, Types.int8Type)
        // The SQLite statements' meaning (SQLiteTokenBackend.swift), in PostgreSQL's words.
        // Many rows a statement (``batchSize``), each upserted as SQLiteTokenBackend's
        // statement does one: a new token is inactive when feedback at or after its
        // registration came first.
        try connection.prepare("apn_upsert_many", """
            INSERT INTO tokens (token, topic, registered_at, active, deactivated_at, last_feedback_at)
            SELECT r.token, r.topic, r.at, f.after IS NULL, f.after, f.latest
            FROM unnest($1::bytea[], $2::text[], $3::int8[]) AS r(token, topic, at)
            -- One probe of the token's feedback, not one a column.
            CROSS JOIN LATERAL (
                SELECT max(time) FILTER (WHERE time >= r.at) AS after, max(time) AS latest
                FROM feedback WHERE token = r.token) AS f
            ON CONFLICT (token) DO UPDATE SET
                topic = coalesce(excluded.topic, tokens.topic),
                registered_at = greatest(tokens.registered_at, excluded.registered_at),
                active = (tokens.deactivated_at IS NULL
                    OR greatest(tokens.registered_at, excluded.registered_at) > tokens.deactivated_at),
                deactivated_at = CASE
                    WHEN tokens.deactivated_at IS NOT NULL
                        AND greatest(tokens.registered_at, excluded.registered_at) > tokens.deactivated_at THEN NULL
                    ELSE tokens.deactivated_at END
            """, types: [Types.byteaArrayType, Types.textArrayType, Types.int8ArrayType])
        try connection.prepare("apn_unregister", """
            UPDATE tokens SET active = false, deactivated_at = greatest(coalesce(deactivated_at, $2), $2)
            WHERE token = $1 AND registered_at <= $2
            """, types: [bytea, int8])
        try connection.prepare("apn_select", "SELECT \(Self.columns) FROM tokens WHERE token = $1", types: [bytea])
        try prepareBatches()
        try prepareMaintenance()
        try prepareResendRecord()
        try prepareJournal()
        try prepareBridgeInstances()
    }

    // MARK: registrations

    func writeTransaction<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        try connection.transaction(body)
    }

    func unregister(_ token: [UInt8], at time: Int64) throws(StoreError) -> Bool {
        try connection.transaction { () throws(StoreError) -> Bool in
            try connection.run("apn_unregister", [.bytes(token), .int64(time)]).changes > 0
        }
    }

    // MARK: reading

    func lookup(_ token: [UInt8]) throws(StoreError) -> TokenRecord? {
        let result = try connection.run("apn_select", [.bytes(token)])
        guard result.rows > 0 else { return nil }
        return try Self.record(result, 0)
    }

    func list(_ filter: TokenStore.Filter, _ body: (TokenRecord) throws -> Void) throws {
        let condition = switch filter {
        case .all: ""
        case .active: " WHERE active"
        case .inactive: " WHERE NOT active"
        }
        try connection.stream("SELECT \(Self.columns) FROM tokens\(condition) ORDER BY token") { result, row in
            try body(Self.record(result, row))
        }
    }

    func counts() throws(StoreError) -> (active: Int, inactive: Int) {
        let result = try connection.execute(
            "SELECT coalesce(sum(active::int), 0)::int8, count(*)::int8 FROM tokens", binary: true)
        let active = Int(result.int64(0, 0) ?? 0)
        return (active, Int(result.int64(0, 1) ?? 0) - active)
    }

    func feedback(_ body: (FeedbackRecord) throws -> Void) throws {
        try connection.stream("SELECT token, time::int8, read_at::int8, applied FROM feedback ORDER BY token, time") {
            result, row in
            let device = try storedDevice(result.bytes(row, 0), " in its feedback")
            guard let outcome = result.text(row, 3).flatMap(FeedbackRecord.Outcome.init(rawValue:)) else {
                throw StoreError(.corrupt, "the token store holds a feedback tuple with an unknown outcome")
            }
            try body(FeedbackRecord(
                device: device, time: result.int64(row, 1) ?? 0, readAt: result.int64(row, 2) ?? 0, outcome: outcome))
        }
    }

    func feedbackCount() throws(StoreError) -> Int {
        Int(try connection.execute("SELECT count(*)::int8 FROM feedback", binary: true).int64(0, 0) ?? 0)
    }

    private static func record(_ result: PostgresResult, _ row: Int32) throws(StoreError) -> TokenRecord {
        TokenRecord(
            device: try storedDevice(result.bytes(row, 0), ""), topic: result.text(row, 1),
            registeredAt: result.int64(row, 2) ?? 0, isActive: result.bool(row, 3),
            deactivatedAt: result.int64(row, 4), lastFeedbackAt: result.int64(row, 5))
    }
}
