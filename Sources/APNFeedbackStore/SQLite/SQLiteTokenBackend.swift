import APNCore

/// The token store in one SQLite file, in WAL mode with `synchronous = NORMAL`: a committed
/// batch survives the process being killed (not a power loss between checkpoints). One
/// process writes at a time (`BEGIN IMMEDIATE`, others wait up to the busy timeout, then get
/// ``StoreError/Kind/locked``); readers in other processes are not blocked. Not thread-safe.
final class SQLiteTokenBackend: TokenRegistryBackend, BridgeStateBackend {
    /// The file, as given; internal for SQLiteTokenBackend+WriteCheck.swift.
    let path: String
    /// Internal for the extensions beside this file.
    let database: SQLiteDatabase
    private let upsert: SQLiteStatement
    private let unregistration: SQLiteStatement
    private let select: SQLiteStatement
    private let recordFeedback: SQLiteStatement
    private let deactivate: SQLiteStatement
    private let noteFeedback: SQLiteStatement
    /// The feedback outbox's statements; internal for SQLiteTokenBackend+Maintenance.swift.
    let outbox: SQLiteFeedbackOutbox
    /// The bridge's resend record's statements.
    let resend: SQLiteResendRecord
    /// The bridge's journal's statements.
    let journal: SQLiteJournal
    /// The bridges' liveness locks (SQLiteTokenBackend+Bridges.swift), once a bridge registers.
    var bridgeLockFile: BridgeLockFile?

    init(path: String, options: TokenStore.Options) throws(StoreError) {
        self.path = path
        database = try SQLiteDatabase(path: path, create: options.create, busyTimeout: options.busyTimeout)
        try database.execute("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL")
        try SQLiteSchema.migrate(database)
        // A registration consults the feedback already held, so one imported after its
        // feedback ends as it would have before it.
        upsert = try database.prepare("""
            INSERT INTO tokens (token, topic, registered_at, active, deactivated_at, last_feedback_at)
            VALUES (?1, ?2, ?3,
                NOT EXISTS (SELECT 1 FROM feedback WHERE token = ?1 AND time >= ?3),
                (SELECT max(time) FROM feedback WHERE token = ?1 AND time >= ?3),
                (SELECT max(time) FROM feedback WHERE token = ?1))
            ON CONFLICT (token) DO UPDATE SET
                topic = coalesce(excluded.topic, tokens.topic),
                registered_at = max(tokens.registered_at, excluded.registered_at),
                active = (tokens.deactivated_at IS NULL
                    OR max(tokens.registered_at, excluded.registered_at) > tokens.deactivated_at),
                deactivated_at = CASE
                    WHEN tokens.deactivated_at IS NOT NULL
                        AND max(tokens.registered_at, excluded.registered_at) > tokens.deactivated_at THEN NULL
                    ELSE tokens.deactivated_at END
            """)
        unregistration = try database.prepare("""
            UPDATE tokens SET active = 0,
                deactivated_at = max(coalesce(deactivated_at, ?2), ?2)
            WHERE token = ?1 AND registered_at <= ?2
            """)
        select = try database.prepare("""
            SELECT token, topic, registered_at, active, deactivated_at, last_feedback_at FROM tokens WHERE token = ?1
            """)
        recordFeedback = try database.prepare("""
            INSERT OR IGNORE INTO feedback (token, time, read_at, applied) VALUES (?1, ?2, ?3, ?4)
            """)
        deactivate = try database.prepare("""
            UPDATE tokens SET active = 0,
                deactivated_at = max(coalesce(deactivated_at, ?2), ?2),
                last_feedback_at = max(coalesce(last_feedback_at, ?2), ?2)
            WHERE token = ?1
            """)
        noteFeedback = try database.prepare("""
            UPDATE tokens SET last_feedback_at = max(coalesce(last_feedback_at, ?2), ?2) WHERE token = ?1
            """)
        outbox = try SQLiteFeedbackOutbox(database)
        resend = try SQLiteResendRecord(database)
        journal = try SQLiteJournal(database)
    }

    // MARK: the bridge's resend record

    func applyResendChanges(_ changes: [BridgeStateStore.ResendChange]) throws(StoreError) {
        try resend.apply(changes)
    }

    // MARK: the bridge's journal

    func applyJournal(_ batch: BridgeStateStore.JournalBatch, instance: Int64) throws(StoreError) {
        try journal.apply(batch, instance: instance)
    }

    // MARK: registrations

    func writeTransaction<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        try database.transaction(body)
    }

    func upsert(_ registrations: [TokenStore.Registration]) throws(StoreError) -> Int {
        var count = 0
        for registration in registrations {
            upsert.reset()
            upsert.bind(1, registration.device.token)
            upsert.bind(2, registration.topic)
            upsert.bind(3, registration.at)
            try upsert.run()
            count += 1
        }
        return count
    }

    func unregister(_ token: [UInt8], at time: Int64) throws(StoreError) -> Bool {
        try database.transaction { () throws(StoreError) -> Bool in
            unregistration.reset()
            unregistration.bind(1, token)
            unregistration.bind(2, time)
            try unregistration.run()
            return database.changes > 0
        }
    }

    // MARK: reading

    func lookup(_ token: [UInt8]) throws(StoreError) -> TokenRecord? {
        select.reset()
        // Reset however it ends: a statement left on a row holds a read snapshot, which
        // keeps WAL checkpoints from completing.
        defer { select.reset() }
        select.bind(1, token)
        guard try select.step() else { return nil }
        return try Self.record(select)
    }

    func list(_ filter: TokenStore.Filter, _ body: (TokenRecord) throws -> Void) throws {
        let condition = switch filter {
        case .all: ""
        case .active: " WHERE active = 1"
        case .inactive: " WHERE active = 0"
        }
        let statement = try database.prepare(
            "SELECT token, topic, registered_at, active, deactivated_at, last_feedback_at FROM tokens\(condition) ORDER BY token",
            persistent: false)
        while try statement.step() { try body(Self.record(statement)) }
    }

    func counts() throws(StoreError) -> (active: Int, inactive: Int) {
        let statement = try database.prepare("SELECT coalesce(sum(active), 0), count(*) FROM tokens", persistent: false)
        guard try statement.step() else { return (0, 0) }
        let active = Int(statement.int64(0) ?? 0)
        return (active, Int(statement.int64(1) ?? 0) - active)
    }

    func feedback(_ body: (FeedbackRecord) throws -> Void) throws {
        let statement = try database.prepare("SELECT token, time, read_at, applied FROM feedback ORDER BY token, time")
        while try statement.step() {
            let device = try storedDevice(statement.bytes(0), " in its feedback")
            guard let outcome = statement.text(3).flatMap(FeedbackRecord.Outcome.init(rawValue:)) else {
                throw StoreError(.corrupt, "the token store holds a feedback tuple with an unknown outcome")
            }
            try body(FeedbackRecord(
                device: device, time: statement.int64(1) ?? 0, readAt: statement.int64(2) ?? 0, outcome: outcome))
        }
    }

    func feedbackCount() throws(StoreError) -> Int {
        let statement = try database.prepare("SELECT count(*) FROM feedback")
        guard try statement.step() else { return 0 }
        return Int(statement.int64(0) ?? 0)
    }

    private static func record(_ row: SQLiteStatement) throws(StoreError) -> TokenRecord {
        TokenRecord(
            device: try storedDevice(row.bytes(0), ""), topic: row.text(1), registeredAt: row.int64(2) ?? 0,
            isActive: row.int64(3) == 1, deactivatedAt: row.int64(4), lastFeedbackAt: row.int64(5))
    }

    // MARK: feedback

    func apply(_ entries: [FeedbackEntry], readAt: Int64, into summary: inout FeedbackApplication) throws(StoreError) {
        // One statement each: SQLite is in-process, a statement costs no round trip.
        for entry in entries { try apply(entry, readAt: readAt, into: &summary) }
    }

    private func apply(_ entry: FeedbackEntry, readAt: Int64, into summary: inout FeedbackApplication) throws(StoreError) {
        let token = entry.device.token
        let time = Int64(entry.unixTime)
        select.reset()
        select.bind(1, token)
        let registeredAt: Int64? = try select.step() ? select.int64(2) : nil
        select.reset()
        let verdict = feedbackVerdict(registeredAt: registeredAt, feedbackTime: time)
        recordFeedback.reset()
        recordFeedback.bind(1, token)
        recordFeedback.bind(2, time)
        recordFeedback.bind(3, readAt)
        recordFeedback.bind(4, verdict.rawValue)
        try recordFeedback.run()
        let recorded = database.changes > 0
        summary.count(verdict, recorded: recorded)
        guard recorded else { return }
        switch verdict {
        case .deactivated: try update(deactivate, token, time)
        case .kept: try update(noteFeedback, token, time)
        case .unknown: break
        }
    }

    private func update(_ statement: SQLiteStatement, _ token: [UInt8], _ time: Int64) throws(StoreError) {
        statement.reset()
        statement.bind(1, token)
        statement.bind(2, time)
        try statement.run()
    }
}
