import APNFeedbackStore

extension FeedbackPollLock {
    /// How often a standby tries the PostgreSQL lease: with a killed holder, the bound on
    /// the takeover (its session ends with its socket).
    static let standbyRetry: Duration = .seconds(2)

    /// The lock for `store`: a SQLite store's at once (``Held`` when another service holds
    /// it), a PostgreSQL store's lease as soon as it is free — until then the service waits
    /// as a hot standby, trying every ``standbyRetry`` and saying so once
    /// (``FeedbackService/Event/waitingForLease(store:retry:)``). Nil when a stop was asked
    /// for while it waited.
    static func take(
        store: String, stop: FeedbackServiceStop, events: (FeedbackService.Event) -> Void
    ) throws(Held) -> FeedbackPollLock? {
        guard TokenStore.isPostgreSQL(store) else { return try FeedbackPollLock(store: store) }
        let shown = TokenStore.redacted(store)
        var waited = false
        var lastFailure: String?
        while true {
            do throws(StoreError) {
                if let lease = try FeedbackPollLease.take(location: store) {
                    events(.leaseTaken(store: shown, afterWaiting: waited))
                    return FeedbackPollLock(lease: lease)
                }
                if !waited { events(.waitingForLease(store: shown, retry: standbyRetry)) }
                lastFailure = nil
            } catch {
                // A bad URL or login fails the start; once waiting, an unreachable server
                // (a restart, a failover) is waited out like a held lease, said once.
                guard waited else { throw Held(store: shown, lockFile: shown, holder: nil, failure: error.description) }
                if lastFailure != error.message { events(.leaseUnreachable(error)) }
                lastFailure = error.message
            }
            waited = true
            if stop.wait(standbyRetry) { return nil }
        }
    }
}
