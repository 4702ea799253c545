/// Bridges sharing a store (#41): each registers itself and holds a lock for as long as
/// its process lives — a byte-range lock on a file beside a SQLite store, a session
/// advisory lock on PostgreSQL — which the system releases when the process dies, however
/// it dies. A bridge whose lock can be taken is dead, and another takes its state over
/// (``takeOverDeadBridges(instance:tenants:recordSince:plan:)``) in one transaction.
extension BridgeStateStore {
    /// What a starting or surviving bridge took over for one tenant.
    package struct BridgeTakeOver: Sendable {
        /// Record rows, now under the taker's instance.
        package var record: [ResendRow] = []
        /// Journal rows to forward, now under the taker's instance, not sent.
        package var journal: [JournalRow] = []
        /// Rows the dead bridges may have written upstream and saw no answer for.
        package var maybeDelivered = 0

        /// A takeover of these.
        package init(record: [ResendRow] = [], journal: [JournalRow] = [], maybeDelivered: Int = 0) {
            self.record = record
            self.journal = journal
            self.maybeDelivered = maybeDelivered
        }
    }

    /// Registers `instance` as a live bridge on this store and takes its lock, held until
    /// the store is closed or the process ends.
    ///
    /// - Throws: ``StoreError`` when the registry cannot be written or the lock not taken.
    package func registerBridgeInstance(_ instance: Int64, startedAt: Int64) throws(StoreError) {
        try backend.registerBridgeInstance(instance, startedAt: startedAt)
    }

    /// Releases `instance`'s lock (its bridge stopped): another bridge may take its state over.
    package func releaseBridgeInstance(_ instance: Int64) {
        backend.releaseBridgeInstance(instance)
    }

    /// Whether this bridge's lock may be gone while it runs: on PostgreSQL, the session that
    /// held it ended (a server restart or failover, a network loss, `pg_terminate_backend`);
    /// a SQLite file's lock is never lost. The store does not reconnect: another bridge may
    /// take the lock and this one's state over, so the bridge must stop forwarding — it
    /// cannot, since nothing it reads is journaled any more — and stop; a new start
    /// registers afresh and takes over what it left.
    package var bridgeLockLost: Bool { backend.bridgeLockLost }

    /// Takes over every dead bridge's state, in one transaction: for each of `tenants`,
    /// `plan` gets the dead bridges' record rows recorded since `recordSince` (UNIX ms) and
    /// what they left in the journal, and returns the rows to keep under `instance`; then
    /// every row of the dead bridges goes. Returns the dead instances and, per tenant, what
    /// `plan` returned. `plan` may run more than once (a transaction retried): it must only
    /// compute.
    package func takeOverDeadBridges(
        instance: Int64, tenants: [String], recordSince: Int64,
        plan: (String, [ResendRow], JournalLeftover) -> BridgeTakeOver
    ) throws(StoreError) -> (instances: [Int64], byTenant: [String: BridgeTakeOver]) {
        for tenant in tenants { try checkTenant(tenant) }
        return try backend.takeOverDeadBridges(instance: instance, tenants: tenants, recordSince: recordSince, plan: plan)
    }

    /// The record rows bridges other than `instance` keep for `tenant`, recorded since
    /// `since` (UNIX ms), oldest first: a client that moved from one of them to this one
    /// after an error response has its resends answered from them.
    package func peerResendRows(tenant: String, excluding instance: Int64, since: Int64) throws(StoreError) -> [ResendRow] {
        try checkTenant(tenant)
        return try backend.peerResendRows(tenant: tenant, excluding: instance, since: since)
    }
}
