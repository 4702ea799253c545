public import APN

/// The durable registry a feedback polling service keeps: which device tokens an app
/// registered, when, and what the feedback service said about them — in one SQLite file.
///
/// Apple's rule decides each feedback tuple: a token is deactivated when the feedback time
/// is at or after its last registration, and kept (the tuple recorded, the token active)
/// when the app registered it again later. Applying the same tuple twice changes nothing,
/// so a batch can be applied again after a crash. Each batch is one transaction.
///
/// The same file keeps a per-tenant feedback outbox for a server that answers as Apple's
/// feedback service did: ``queueFeedback(_:)`` and the methods beside it.
///
/// The file is in WAL mode with `synchronous = NORMAL`: a committed batch survives the
/// process being killed (not a power loss between checkpoints). One process writes at a
/// time (others wait up to ``Options/busyTimeout``, then get ``StoreError/Kind/locked``);
/// readers in other processes are not blocked. A `TokenStore` is not thread-safe: use it
/// from one thread at a time, and open one per thread that needs its own.
public final class TokenStore {
    /// How the store is opened.
    public struct Options: Sendable {
        /// How long to wait for another process's write lock before ``StoreError/Kind/locked``.
        public var busyTimeout: Duration = .seconds(5)
        /// Create the file (and its schema) when it does not exist.
        public var create = true

        /// The defaults: a 5 s busy timeout, the file created when missing.
        public init() {}
    }

    /// Which tokens ``list(_:_:)`` returns.
    public enum Filter: Sendable {
        /// Every token.
        case all
        /// Tokens notifications should still go to.
        case active
        /// Tokens deactivated by feedback or unregistration.
        case inactive
    }

    /// A token to register in bulk (``register(_:)``).
    public struct Registration: Sendable {
        /// The device.
        public var device: Device
        /// The app's topic, if known.
        public var topic: String?
        /// When the app registered it, as UNIX seconds.
        public var at: Int64

        /// Creates a registration.
        public init(device: Device, topic: String? = nil, at: Int64) {
            self.device = device
            self.topic = topic
            self.at = at
        }
    }

    /// The file, as given; internal for TokenStore+WriteCheck.swift.
    let path: String
    /// Internal for TokenStore+WriteCheck.swift.
    let database: SQLiteDatabase
    private let upsert: SQLiteStatement
    private let unregistration: SQLiteStatement
    private let select: SQLiteStatement
    private let recordFeedback: SQLiteStatement
    private let deactivate: SQLiteStatement
    private let noteFeedback: SQLiteStatement
    /// The feedback outbox's statements; internal for TokenStore+FeedbackOutbox.swift.
    let outbox: FeedbackOutbox

    /// Opens the store at `path`, creating or migrating its schema.
    ///
    /// - Throws: ``StoreError`` — `cannotOpen`, `corrupt` (not a SQLite file), `locked`, or
    ///   `schemaTooNew` for a file a newer swift-apn wrote (left untouched).
    public init(path: String, options: Options = Options()) throws(StoreError) {
        self.path = path
        database = try SQLiteDatabase(path: path, create: options.create, busyTimeout: options.busyTimeout)
        try database.execute("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL")
        try Schema.migrate(database)
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
        outbox = try FeedbackOutbox(database)
    }

    // MARK: registrations

    /// Records that the app registered `device` at `time` (UNIX seconds). A later
    /// registration than the one held wins; a token deactivated before `time` is active
    /// again, one deactivated at or after it stays inactive — also when the feedback came
    /// first, for a token the store did not know yet (an import after the service ran).
    public func register(_ device: Device, topic: String? = nil, at time: Int64) throws(StoreError) {
        try database.transaction { () throws(StoreError) in try upsert(device.token, topic, time) }
    }

    /// Registers many tokens in one transaction (an import); returns how many.
    @discardableResult
    public func register(_ registrations: some Sequence<Registration>) throws(StoreError) -> Int {
        try database.transaction { () throws(StoreError) -> Int in
            var count = 0
            for registration in registrations {
                try upsert(registration.device.token, registration.topic, registration.at)
                count += 1
            }
            return count
        }
    }

    private func upsert(_ token: [UInt8], _ topic: String?, _ time: Int64) throws(StoreError) {
        upsert.reset()
        upsert.bind(1, token)
        upsert.bind(2, topic)
        upsert.bind(3, time)
        try upsert.run()
    }

    /// Records that the app unregistered `device` at `time`: it becomes inactive, unless
    /// it was registered again after `time`. Returns whether the store changed.
    @discardableResult
    public func unregister(_ device: Device, at time: Int64) throws(StoreError) -> Bool {
        try database.transaction { () throws(StoreError) -> Bool in
            unregistration.reset()
            unregistration.bind(1, device.token)
            unregistration.bind(2, time)
            try unregistration.run()
            return database.changes > 0
        }
    }

    // MARK: reading

    /// The token's record, or nil when it was never registered.
    public func lookup(_ device: Device) throws(StoreError) -> TokenRecord? {
        select.reset()
        // Reset however it ends: a statement left on a row holds a read snapshot, which
        // keeps WAL checkpoints from completing.
        defer { select.reset() }
        select.bind(1, device.token)
        guard try select.step() else { return nil }
        return try Self.record(select)
    }

    /// Calls `body` with every token that matches `filter`, in token order, reading as it
    /// goes (a million tokens are not held at once).
    public func list(_ filter: Filter = .all, _ body: (TokenRecord) throws -> Void) throws {
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

    /// How many tokens are active and inactive.
    public func counts() throws(StoreError) -> (active: Int, inactive: Int) {
        let statement = try database.prepare("SELECT coalesce(sum(active), 0), count(*) FROM tokens", persistent: false)
        guard try statement.step() else { return (0, 0) }
        let active = Int(statement.int64(0) ?? 0)
        return (active, Int(statement.int64(1) ?? 0) - active)
    }

    /// Calls `body` with every feedback tuple the store received, in (token, time) order.
    /// Each (token, time) is held once, however often it was applied.
    public func feedback(_ body: (FeedbackRecord) throws -> Void) throws {
        let statement = try database.prepare("SELECT token, time, read_at, applied FROM feedback ORDER BY token, time")
        while try statement.step() {
            let device: Device
            do throws(APNError) {
                device = try Device(token: statement.bytes(0), validatesLength: false)
            } catch {
                throw StoreError(.corrupt, "the token store holds an empty token in its feedback")
            }
            guard let outcome = statement.text(3).flatMap(FeedbackRecord.Outcome.init(rawValue:)) else {
                throw StoreError(.corrupt, "the token store holds a feedback tuple with an unknown outcome")
            }
            try body(FeedbackRecord(
                device: device, time: statement.int64(1) ?? 0, readAt: statement.int64(2) ?? 0, outcome: outcome))
        }
    }

    /// How many feedback tuples the store received (each (token, time) once).
    public func feedbackCount() throws(StoreError) -> Int {
        let statement = try database.prepare("SELECT count(*) FROM feedback")
        guard try statement.step() else { return 0 }
        return Int(statement.int64(0) ?? 0)
    }

    private static func record(_ row: SQLiteStatement) throws(StoreError) -> TokenRecord {
        let device: Device
        do throws(APNError) {
            device = try Device(token: row.bytes(0), validatesLength: false)
        } catch {
            throw StoreError(.corrupt, "the token store holds an empty token")
        }
        return TokenRecord(
            device: device, topic: row.text(1), registeredAt: row.int64(2) ?? 0, isActive: row.int64(3) == 1,
            deactivatedAt: row.int64(4), lastFeedbackAt: row.int64(5))
    }

    // MARK: feedback

    /// Applies one batch read from the feedback service, in one transaction, and records
    /// every tuple with what it did. `readAt`: when it was read, as UNIX seconds.
    @discardableResult
    public func apply(_ entries: [Feedback.Entry], readAt: Int64) throws(StoreError) -> FeedbackApplication {
        try database.transaction { () throws(StoreError) -> FeedbackApplication in
            var summary = FeedbackApplication()
            for entry in entries { try apply(entry, readAt: readAt, into: &summary) }
            return summary
        }
    }

    /// An import: registrations, then feedback tuples (a feedback service's recovery file,
    /// say), in one transaction, so a failure imports nothing. Each is applied as
    /// ``register(_:)`` and ``apply(_:readAt:)`` do, so a tuple replayed here ends as it
    /// would have at the visit: a registration later than its time keeps the token.
    /// Registrations go first so that a tuple for a token of the same import is recorded
    /// against it (`deactivated` or `kept`, not `unknown`); the tokens end the same either way.
    public func importRecords(
        _ registrations: some Sequence<Registration>, feedback: [Feedback.Entry], readAt: Int64
    ) throws(StoreError) -> (registered: Int, feedback: FeedbackApplication) {
        try database.transaction { () throws(StoreError) -> (registered: Int, feedback: FeedbackApplication) in
            var registered = 0
            for registration in registrations {
                try upsert(registration.device.token, registration.topic, registration.at)
                registered += 1
            }
            var summary = FeedbackApplication()
            for entry in feedback { try apply(entry, readAt: readAt, into: &summary) }
            return (registered, summary)
        }
    }

    private func apply(_ entry: Feedback.Entry, readAt: Int64, into summary: inout FeedbackApplication) throws(StoreError) {
        summary.read += 1
        let token = entry.device.token
        let time = Int64(entry.unixTime)
        select.reset()
        select.bind(1, token)
        let registeredAt: Int64? = try select.step() ? select.int64(2) : nil
        select.reset()
        let verdict = registeredAt.map { $0 <= time ? "deactivated" : "kept" } ?? "unknown"
        recordFeedback.reset()
        recordFeedback.bind(1, token)
        recordFeedback.bind(2, time)
        recordFeedback.bind(3, readAt)
        recordFeedback.bind(4, verdict)
        try recordFeedback.run()
        guard database.changes > 0 else {
            summary.duplicates += 1
            return
        }
        switch verdict {
        case "deactivated":
            summary.deactivated += 1
            try update(deactivate, token, time)
        case "kept":
            summary.kept += 1
            try update(noteFeedback, token, time)
        default:
            summary.unknown += 1
        }
    }

    private func update(_ statement: SQLiteStatement, _ token: [UInt8], _ time: Int64) throws(StoreError) {
        statement.reset()
        statement.bind(1, token)
        statement.bind(2, time)
        try statement.run()
    }
}
