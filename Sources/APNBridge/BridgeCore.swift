import APNSupport
@_spi(APNBridge) import APN
import APNTLS
import APNWire
import APNGatewayServer
import Synchronization

/// What the bridge's listeners share: the tenants' state, the directory that finds a
/// client's tenant, the feedback outbox, and whether new connections are taken.
final class BridgeCore: Sendable {
    /// The directory and every tenant's state, replaced by a reload.
    let table: BridgeTenantTable
    /// Every tenant's state, by tenant name.
    var tenants: [String: TenantBridge] { table.all }
    let outbox: FeedbackOutbox
    /// What every connection of every tenant may hold (`--max-in-flight`).
    let budget: InFlightBudget
    let log: @Sendable (BridgeEvent) -> Void
    /// Run as a client connection opens, before its tenant's session: with a store, takes
    /// over bridges on it that died, so that a client moving here from one is answered
    /// from what it left (#41).
    let beforeOpen: @Sendable () -> Void
    private let accepting = Atomic<Bool>(true)
    private let refused = Atomic<Int>(0)
    private let served = Atomic<Int>(0)

    /// The shared state of the tenants in `directory`.
    init(
        table: BridgeTenantTable, outbox: FeedbackOutbox, budget: InFlightBudget,
        log: @escaping @Sendable (BridgeEvent) -> Void, beforeOpen: @escaping @Sendable () -> Void = {}
    ) {
        self.budget = budget
        self.log = log
        self.beforeOpen = beforeOpen
        self.table = table
        self.outbox = outbox
    }

    /// The tenant `peer` belongs to, or nil (no certificate, or one no tenant names).
    func tenant(for peer: TLSCertificate?) -> TenantBridge? {
        guard let peer else { return nil }
        return table.tenant(for: peer)
    }

    /// Whether new client connections are taken (not once stopping).
    var isAccepting: Bool { accepting.load(ordering: .sequentiallyConsistent) }

    /// From now on, every new gateway connection is closed at once.
    func stopAccepting() {
        accepting.store(false, ordering: .sequentiallyConsistent)
    }

    /// Gateway connections closed at once: unknown certificate, stopping, no descriptors.
    var refusedConnections: Int { refused.load(ordering: .sequentiallyConsistent) }

    /// Counts one gateway connection closed at once, and logs why.
    func countRefused(_ why: BridgeEvent.Refusal, tenant: String?) {
        refused.add(1, ordering: .sequentiallyConsistent)
        log(.connectionRefused(tenant: tenant, why))
    }

    /// Feedback tuples written to clients.
    var feedbackServed: Int { served.load(ordering: .sequentiallyConsistent) }

    /// Counts `count` tuples written to a client.
    func countServed(_ count: Int) {
        served.add(count, ordering: .sequentiallyConsistent)
    }
}

/// The bridge's gateway policy: a client whose certificate names a tenant gets a session
/// (held while the tenant's upstream backs off) unless the bridge is stopping; any other
/// is closed at once.
struct BridgeGateway: BinaryGatewayPolicy {
    let core: BridgeCore

    /// A handler for a client of a known tenant, or nil (closed at once, counted).
    func open(peer: TLSCertificate?) -> BridgeConnectionHandler? {
        let tenant = core.tenant(for: peer)
        guard core.isAccepting else {
            core.countRefused(.stopping, tenant: tenant?.tenant.name)
            return nil
        }
        guard let tenant else {
            core.countRefused(.unknownClient, tenant: nil)
            return nil
        }
        core.beforeOpen()
        // A waker is a pipe: without one (descriptors exhausted) the connection cannot
        // wait for answers, so it is closed before anything is read.
        guard let waker = try? WakeSignal() else {
            core.countRefused(.noResources, tenant: tenant.tenant.name)
            return nil
        }
        return BridgeConnectionHandler(
            tenant: tenant, number: tenant.open(waker: waker), waker: waker, budget: core.budget,
            ticket: core.budget.join(waker))
    }
}

/// The bridge's feedback: a client is served its tenant's queued tuples, at most
/// ``batchLimit`` a visit, and they are removed only once every byte was written.
struct BridgeFeedback: FeedbackSource {
    let core: BridgeCore

    /// The most tuples one visit serves (38 bytes each for 32-byte tokens): a client that
    /// was away long gets the rest on its next visit.
    static let batchLimit = 10_000

    /// The tuples a visit took, to remove once served.
    struct Receipt {
        let tenant: String
        let entries: [Feedback.Entry]
    }

    /// The oldest of the peer's tenant's tuples, encoded; nil (closed) for a peer no
    /// tenant names.
    func take(for peer: TLSCertificate?) -> (batch: FeedbackBatch, receipt: Receipt)? {
        guard let tenant = core.tenant(for: peer)?.tenant else { return nil }
        // Claimed: a client of another bridge on the same store is not served them meanwhile.
        let entries = core.outbox.claim(tenant: tenant.name, limit: Self.batchLimit)
        var bytes = WireBuffer(capacity: max(64, entries.count * 38))
        for entry in entries { bytes.writeFeedbackTuple(time: entry.unixTime, token: entry.device.token) }
        return (FeedbackBatch(bytes: bytes.readableBytesArray), Receipt(tenant: tenant.name, entries: entries))
    }

    /// Removes the tuples once every byte was written; kept for the next visit otherwise.
    func settle(_ receipt: Receipt, served: Bool) {
        guard !receipt.entries.isEmpty else { return }
        guard served else { return core.outbox.release(tenant: receipt.tenant, receipt.entries) }
        core.outbox.removeServed(tenant: receipt.tenant, receipt.entries)
        core.countServed(receipt.entries.count)
    }
}
