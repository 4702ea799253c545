package import APNCore

/// What a ``TokenStore`` asks of the database it keeps its registry in: SQLite
/// (``SQLiteTokenBackend``) or PostgreSQL (``PostgresTokenBackend``). Each backend keeps
/// the same schema meaning and the same rules; ``TokenStore`` documents them once. Each
/// write method is one transaction: all of it commits or, when it throws, none.
///
/// `package` so that test support can wrap one (a decorator whose commits fail as on a full
/// disk): the production backends carry no test hook.
package protocol TokenRegistryBackend: AnyObject {
    /// Runs `body` as one write transaction (run again from the start where the backend
    /// retries conflicts), rolled back when it throws. Every registry write but
    /// ``unregister(_:at:)``, ``delete(_:)`` and ``prune(inactiveBefore:)`` goes through it.
    func writeTransaction<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T
    /// Upserts the registrations by Apple's rule, inside a write transaction; returns how many.
    func upsert(_ registrations: [TokenStore.Registration]) throws(StoreError) -> Int
    /// Records each feedback tuple, in order, and applies it by Apple's rule, inside a write
    /// transaction (as if one after another: a tuple repeated in `entries` is a duplicate).
    func apply(_ entries: [FeedbackEntry], readAt: Int64, into summary: inout FeedbackApplication) throws(StoreError)
    /// Deactivates the token unless registered after `time`; returns whether a row changed.
    func unregister(_ token: [UInt8], at time: Int64) throws(StoreError) -> Bool
    /// The token's record.
    func lookup(_ token: [UInt8]) throws(StoreError) -> TokenRecord?
    /// Every token `filter` takes, in token order.
    func list(_ filter: TokenStore.Filter, _ body: (TokenRecord) throws -> Void) throws
    /// Active and inactive tokens.
    func counts() throws(StoreError) -> (active: Int, inactive: Int)
    /// Every feedback tuple received, in (token, time) order.
    func feedback(_ body: (FeedbackRecord) throws -> Void) throws
    /// How many feedback tuples were received.
    func feedbackCount() throws(StoreError) -> Int
    /// Deletes the tokens and their tuples; returns how many tokens.
    func delete(_ tokens: [[UInt8]]) throws(StoreError) -> Int
    /// Deletes tokens inactive since before `time`; returns how many.
    func prune(inactiveBefore time: Int64) throws(StoreError) -> Int
    /// Runs `body` on one consistent read.
    func snapshot<T>(_ body: () throws -> T) throws -> T
    /// ``TokenStore/checkWritable(freeBytes:)``.
    func checkWritable(freeBytes: Int) throws(StoreError)
}

/// What a ``BridgeStateStore`` asks of its database: the bridge's feedback outbox, resend
/// record, journal and instances. The same two backends implement it, so the bridge's state
/// may share one database (one file, one PostgreSQL schema) with the registry.
protocol BridgeStateBackend: AnyObject {
    func queueFeedback(_ items: some Sequence<BridgeStateStore.QueuedFeedback>) throws(StoreError)
    func pendingFeedback(tenant: String, limit: Int) throws(StoreError) -> [FeedbackEntry]
    func removeServedFeedback(tenant: String, _ served: some Sequence<FeedbackEntry>) throws(StoreError) -> Int
    func pendingFeedbackCount(tenant: String) throws(StoreError) -> Int
    func claimFeedback(tenant: String, limit: Int, now: Int64, until: Int64) throws(StoreError) -> [FeedbackEntry]
    func releaseFeedback(tenant: String, _ entries: [FeedbackEntry]) throws(StoreError)
    func applyResendChanges(_ changes: [BridgeStateStore.ResendChange]) throws(StoreError)
    func applyJournal(_ batch: BridgeStateStore.JournalBatch, instance: Int64) throws(StoreError)
    func registerBridgeInstance(_ instance: Int64, startedAt: Int64) throws(StoreError)
    func releaseBridgeInstance(_ instance: Int64)
    /// ``BridgeStateStore/bridgeLockLost``.
    var bridgeLockLost: Bool { get }
    func takeOverDeadBridges(
        instance: Int64, tenants: [String], recordSince: Int64,
        plan: (String, [BridgeStateStore.ResendRow], BridgeStateStore.JournalLeftover) -> BridgeStateStore.BridgeTakeOver
    ) throws(StoreError) -> (instances: [Int64], byTenant: [String: BridgeStateStore.BridgeTakeOver])
    func peerResendRows(tenant: String, excluding instance: Int64, since: Int64) throws(StoreError) -> [BridgeStateStore.ResendRow]
    /// ``BridgeStateStore/checkWritable(freeBytes:)``.
    func checkWritable(freeBytes: Int) throws(StoreError)
}

extension TokenRegistryBackend {
    /// Upserts the registrations by Apple's rule in one transaction; returns how many.
    func register(_ registrations: some Sequence<TokenStore.Registration>) throws(StoreError) -> Int {
        // Held, so that a transaction run again after a conflict sees them all.
        let registrations = Array(registrations)
        return try writeTransaction { () throws(StoreError) -> Int in try upsert(registrations) }
    }

    /// Registrations, then feedback tuples, in one transaction (``TokenStore/apply(_:readAt:)``
    /// is an import without registrations).
    func importRecords(
        _ registrations: some Sequence<TokenStore.Registration>, feedback: [FeedbackEntry], readAt: Int64
    ) throws(StoreError) -> (registered: Int, feedback: FeedbackApplication) {
        let registrations = Array(registrations)
        return try writeTransaction { () throws(StoreError) -> (registered: Int, feedback: FeedbackApplication) in
            let registered = try upsert(registrations)
            // Counted afresh on each run of the transaction.
            var summary = FeedbackApplication()
            try apply(feedback, readAt: readAt, into: &summary)
            return (registered, summary)
        }
    }
}

/// What a feedback tuple does to the token it names, by Apple's rule: deactivated when its
/// time is at or after the token's last registration (ties go to deactivation), kept when
/// the app registered it again later, unknown when the store does not hold the token.
/// Both backends decide with this one function.
func feedbackVerdict(registeredAt: Int64?, feedbackTime: Int64) -> FeedbackRecord.Outcome {
    guard let registeredAt else { return .unknown }
    return registeredAt <= feedbackTime ? .deactivated : .kept
}

extension FeedbackApplication {
    /// Counts one tuple: `recorded` false when it was held already (a duplicate).
    mutating func count(_ outcome: FeedbackRecord.Outcome, recorded: Bool) {
        read += 1
        guard recorded else {
            duplicates += 1
            return
        }
        switch outcome {
        case .deactivated: deactivated += 1
        case .kept: kept += 1
        case .unknown: unknown += 1
        }
    }
}

/// An empty tenant is most likely a client whose identity was never read: refusing it keeps
/// such clients from sharing one outbox. Both backends check with this.
func checkTenant(_ tenant: String) throws(StoreError) {
    guard !tenant.isEmpty else {
        throw StoreError(.invalidValue, "a feedback outbox tenant must not be empty")
    }
}

/// A token read back from a row, refused when empty (this code never writes one).
func storedDevice(_ bytes: [UInt8], _ place: String) throws(StoreError) -> Device {
    do throws(APNError) {
        return try Device(token: bytes, validatesLength: false)
    } catch {
        throw StoreError(.corrupt, "the token store holds an empty token\(place)")
    }
}
