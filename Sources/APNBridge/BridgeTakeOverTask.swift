import APNFeedbackStore
import APNSupport
import Foundation

/// Takes over what bridges on the same store left when they died (#41): at the start, and
/// then every ``interval`` on the store's writer thread, so that a survivor of a fleet
/// forwards what a dead member read and never wrote. Which bridges are dead the store
/// decides by their locks (BridgeStateStore+BridgeInstances.swift); what becomes of each row is
/// ``JournalRecovery``'s table.
final class BridgeTakeOverTask: Sendable {
    /// How often a running bridge looks for dead ones.
    static let interval: Duration = .seconds(2)

    let instance: Int64
    /// The tenants whose part of a dead bridge's state is taken (a reload adds some).
    let table: BridgeTenantTable
    let outbox: FeedbackOutbox
    let sequence: JournalSequence
    let retention: Duration
    let log: @Sendable (BridgeEvent) -> Void

    init(
        instance: Int64, table: BridgeTenantTable, outbox: FeedbackOutbox, sequence: JournalSequence,
        retention: Duration, log: @escaping @Sendable (BridgeEvent) -> Void
    ) {
        self.instance = instance
        self.table = table
        self.outbox = outbox
        self.sequence = sequence
        self.retention = retention
        self.log = log
    }

    /// One look: takes over every dead bridge's state in one transaction, then hands each
    /// tenant its part.
    func run() throws(StoreError) {
        let now = Int64((Date().timeIntervalSince1970 * 1_000).rounded())
        let instance = instance
        let sequence = sequence
        let tenants = table.all
        let (dead, byTenant) = try outbox.takeOverDeadBridges(
            instance: instance, tenants: Array(tenants.keys), recordSince: now - retention.wholeMilliseconds
        ) { tenant, recordRows, leftover in
            let plan = JournalRecovery(
                recordRows: recordRows, leftover: leftover, forwardSince: now - retention.wholeMilliseconds)
            var taken = BridgeStateStore.BridgeTakeOver(maybeDelivered: plan.maybeDelivered)
            taken.record = plan.record.map { row in
                var row = row
                row.instance = instance
                row.serial = sequence.nextAdoptedSerial()
                row.tenant = tenant
                return row
            }
            taken.journal = plan.forward.map { notification in
                let key = notification.resendKey
                return BridgeStateStore.JournalRow(
                    instance: instance, seq: sequence.next(), tenant: tenant, token: key.token, payload: key.payload,
                    expiry: key.expiry, priority: key.priority, answer: nil, recordedAt: now)
            }
            return taken
        }
        guard !dead.isEmpty else { return }
        for (name, taken) in byTenant { tenants[name]?.takeOver(taken) }
        log(.bridgesTakenOver(instances: dead.count, recovered: byTenant.values.reduce(0) { $0 + $1.journal.count }))
    }
}
