public import APNCore

/// The durable registry a feedback polling service keeps: which device tokens an app
/// registered, when, and what the feedback service said about them — in one SQLite file
/// (the embedded default) or in a PostgreSQL database several hosts share.
///
/// Apple's rule decides each feedback tuple: a token is deactivated when the feedback time
/// is at or after its last registration, and kept (the tuple recorded, the token active)
/// when the app registered it again later. Applying the same tuple twice changes nothing,
/// so a batch can be applied again after a crash. Each batch is one transaction.
///
/// The bridge's own state (its feedback outbox, resend record and journal) may live in the
/// same database, behind a type of its own: ``BridgeStateStore``.
///
/// Both backends keep the same schema meaning and apply the same rules; each write is one
/// transaction. SQLite: the file is in WAL mode with `synchronous = NORMAL`, so a committed
/// batch survives the process being killed (not a power loss between checkpoints); one
/// process writes at a time (others wait up to ``Options/busyTimeout``, then get
/// ``StoreError/Kind/locked``); readers in other processes are not blocked. PostgreSQL:
/// writers on many hosts run at once, each write a serializable transaction retried when
/// the server reports a serialization failure. A `TokenStore` is not thread-safe: use it
/// from one thread at a time, and open one per thread that needs its own.
public final class TokenStore {
    /// How the store is opened.
    public struct Options: Sendable {
        /// How long to wait for another process's write lock (SQLite) or a row or table
        /// lock (PostgreSQL's `lock_timeout`) before ``StoreError/Kind/locked``.
        public var busyTimeout: Duration = .seconds(5)
        /// Create the file (and its schema) when it does not exist. A PostgreSQL database
        /// must exist; its schema is created when missing either way.
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

    /// The database behind the API (`package`: test support wraps it in a decorator).
    package let backend: any TokenRegistryBackend

    /// A store on `backend` (test support: a decorator around a real one).
    package init(backend: any TokenRegistryBackend) {
        self.backend = backend
    }

    /// Opens the SQLite store at `path`, creating or migrating its schema.
    ///
    /// - Throws: ``StoreError`` — `cannotOpen`, `corrupt` (not a SQLite file), `locked`, or
    ///   `schemaTooNew` for a file a newer swift-apn wrote (left untouched).
    public init(path: String, options: Options = Options()) throws(StoreError) {
        backend = try SQLiteTokenBackend(path: path, options: options)
    }

    /// Opens the store at `location`: a `postgresql://` (or `postgres://`) URL opens the
    /// PostgreSQL backend, anything else is a SQLite file path (``init(path:options:)``).
    /// The schema is created or migrated at open on both.
    ///
    /// For PostgreSQL give the password in `PGPASSWORD` or `~/.pgpass` (libpq reads both),
    /// not in the URL: messages show the URL with any password replaced by `***`.
    ///
    /// - Throws: ``StoreError`` — as ``init(path:options:)``; for PostgreSQL `cannotOpen`
    ///   when the server cannot be reached or refuses the login, `schemaTooNew`.
    public init(location: String, options: Options = Options()) throws(StoreError) {
        if let url = PostgresURL(location) {
            backend = try PostgresTokenBackend(url: url, options: options)
        } else {
            backend = try SQLiteTokenBackend(path: location, options: options)
        }
    }

    // MARK: registrations

    /// Records that the app registered `device` at `time` (UNIX seconds). A later
    /// registration than the one held wins; a token deactivated before `time` is active
    /// again, one deactivated at or after it stays inactive — also when the feedback came
    /// first, for a token the store did not know yet (an import after the service ran).
    public func register(_ device: Device, topic: String? = nil, at time: Int64) throws(StoreError) {
        _ = try backend.register(CollectionOfOne(Registration(device: device, topic: topic, at: time)))
    }

    /// Registers many tokens in one transaction (an import); returns how many.
    @discardableResult
    public func register(_ registrations: some Sequence<Registration>) throws(StoreError) -> Int {
        try backend.register(registrations)
    }

    /// Records that the app unregistered `device` at `time`: it becomes inactive, unless
    /// it was registered again after `time`. Returns whether the store changed.
    @discardableResult
    public func unregister(_ device: Device, at time: Int64) throws(StoreError) -> Bool {
        try backend.unregister(device.token, at: time)
    }

    // MARK: reading

    /// The token's record, or nil when it was never registered.
    public func lookup(_ device: Device) throws(StoreError) -> TokenRecord? {
        try backend.lookup(device.token)
    }

    /// Calls `body` with every token that matches `filter`, in token order, reading as it
    /// goes (a million tokens are not held at once).
    public func list(_ filter: Filter = .all, _ body: (TokenRecord) throws -> Void) throws {
        try backend.list(filter, body)
    }

    /// How many tokens are active and inactive.
    public func counts() throws(StoreError) -> (active: Int, inactive: Int) {
        try backend.counts()
    }

    /// Calls `body` with every feedback tuple the store received, in (token, time) order.
    /// Each (token, time) is held once, however often it was applied.
    public func feedback(_ body: (FeedbackRecord) throws -> Void) throws {
        try backend.feedback(body)
    }

    /// How many feedback tuples the store received (each (token, time) once).
    public func feedbackCount() throws(StoreError) -> Int {
        try backend.feedbackCount()
    }

    // MARK: feedback

    /// Applies one batch read from the feedback service, in one transaction, and records
    /// every tuple with what it did. `readAt`: when it was read, as UNIX seconds.
    @discardableResult
    public func apply(_ entries: [FeedbackEntry], readAt: Int64) throws(StoreError) -> FeedbackApplication {
        try backend.importRecords(EmptyCollection<Registration>(), feedback: entries, readAt: readAt).feedback
    }

    /// An import: registrations, then feedback tuples (a feedback service's recovery file,
    /// say), in one transaction, so a failure imports nothing. Each is applied as
    /// ``register(_:)`` and ``apply(_:readAt:)`` do, so a tuple replayed here ends as it
    /// would have at the visit: a registration later than its time keeps the token.
    /// Registrations go first so that a tuple for a token of the same import is recorded
    /// against it (`deactivated` or `kept`, not `unknown`); the tokens end the same either way.
    public func importRecords(
        _ registrations: some Sequence<Registration>, feedback: [FeedbackEntry], readAt: Int64
    ) throws(StoreError) -> (registered: Int, feedback: FeedbackApplication) {
        try backend.importRecords(registrations, feedback: feedback, readAt: readAt)
    }
}
