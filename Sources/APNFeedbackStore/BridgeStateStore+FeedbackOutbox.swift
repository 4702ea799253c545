public import APNCore

/// The feedback outbox: tokens Apple's HTTP/2 API answered 410 Unregistered for, kept per
/// tenant until a client of that tenant has been served them, as Apple's binary feedback
/// service served its tuples.
///
/// A server queues each 410 (``queueFeedback(_:)``), reads a tenant's oldest tuples
/// (``pendingFeedback(tenant:limit:)``), writes them to the client, and only then removes
/// them (``removeServedFeedback(tenant:_:)``). A crash between writing and removing serves
/// those tuples again; none is lost. One row is kept per (tenant, token), holding the
/// latest time reported, as Apple's feedback gave one tuple per token. A tenant's tuples are
/// never returned for, or removed by, another tenant. An empty tenant is refused
/// (``StoreError/Kind/invalidValue``).
extension BridgeStateStore {
    /// One 410 to queue for a tenant's feedback (``queueFeedback(_:)``).
    public struct QueuedFeedback: Hashable, Sendable {
        /// Whose clients are served it: the name the server gives the client's identity.
        public var tenant: String
        /// The token and Apple's time for it, as UNIX seconds: the tuple as it is served.
        public var entry: FeedbackEntry

        /// Creates a queued tuple.
        public init(tenant: String, entry: FeedbackEntry) {
            self.tenant = tenant
            self.entry = entry
        }

        /// Creates a queued tuple from its parts.
        public init(tenant: String, device: Device, unixTime: UInt32) {
            self.init(tenant: tenant, entry: FeedbackEntry(unixTime: unixTime, device: device))
        }
    }

    /// Queues tuples in one transaction: all of them or, when it throws, none. A tuple for
    /// a (tenant, token) already queued keeps the later of the two times.
    ///
    /// - Throws: ``StoreError`` — `invalidValue` for an empty tenant, `locked`, `sqlite`.
    public func queueFeedback(_ items: some Sequence<QueuedFeedback>) throws(StoreError) {
        try backend.queueFeedback(items)
    }

    /// At most `limit` of `tenant`'s queued tuples, oldest first (equal times in token
    /// order). Nothing is removed: serve them, then ``removeServedFeedback(tenant:_:)``.
    ///
    /// - Throws: ``StoreError`` — `invalidValue` for an empty tenant or a negative limit,
    ///   `corrupt` for a row this code could not have written.
    public func pendingFeedback(tenant: String, limit: Int) throws(StoreError) -> [FeedbackEntry] {
        try backend.pendingFeedback(tenant: tenant, limit: limit)
    }

    /// Removes tuples that were written to a client of `tenant`, in one transaction. A row
    /// goes only while its time is still the one served: a later 410 for the token that
    /// arrived meanwhile stays queued, to be served next. Returns how many rows went.
    ///
    /// - Throws: ``StoreError`` — `invalidValue` for an empty tenant, `locked`, `sqlite`.
    @discardableResult
    public func removeServedFeedback(tenant: String, _ served: some Sequence<FeedbackEntry>) throws(StoreError) -> Int {
        try backend.removeServedFeedback(tenant: tenant, served)
    }

    /// How many tuples are queued for `tenant`.
    ///
    /// - Throws: ``StoreError`` — `invalidValue` for an empty tenant.
    public func pendingFeedbackCount(tenant: String) throws(StoreError) -> Int {
        try backend.pendingFeedbackCount(tenant: tenant)
    }

    /// Claims at most `limit` of `tenant`'s tuples, oldest first, that no one else holds a
    /// claim on (or whose claim expired), until `until` (UNIX ms; `now` is the time now), in
    /// one transaction: several servers on one store each serve a tuple once whichever one
    /// a client reaches. Serve them, then ``removeServedFeedback(tenant:_:)`` — or
    /// ``releaseFeedback(tenant:_:)`` when the client went away — and a claim not settled
    /// expires at `until`.
    ///
    /// - Throws: ``StoreError`` — `invalidValue` for an empty tenant or a negative limit.
    package func claimFeedback(tenant: String, limit: Int, now: Int64, until: Int64) throws(StoreError) -> [FeedbackEntry] {
        try checkTenant(tenant)
        guard limit >= 0 else { throw StoreError(.invalidValue, "a feedback limit must not be negative (got \(limit))") }
        return try backend.claimFeedback(tenant: tenant, limit: limit, now: now, until: until).sorted {
            $0.unixTime != $1.unixTime ? $0.unixTime < $1.unixTime : $0.device.token.lexicographicallyPrecedes($1.device.token)
        }
    }

    /// Gives claimed tuples up unserved: the next claim may take them at once.
    package func releaseFeedback(tenant: String, _ entries: [FeedbackEntry]) throws(StoreError) {
        try checkTenant(tenant)
        try backend.releaseFeedback(tenant: tenant, entries)
    }
}
