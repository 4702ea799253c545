import APNSupport
import APNTLS
import Synchronization

/// The bridge's tenants as they are now: the directory that finds a client's tenant, and
/// every tenant's state. A reload (``Bridge/reload(_:)``, SIGHUP) replaces the directory
/// and adds tenants; a tenant dropped from the directory keeps its state, so its open
/// connections carry on and its counts stay in the summary — and it is the same state
/// again if a later reload brings it back.
final class BridgeTenantTable: Sendable {
    private struct State {
        var directory: BridgeTenants
        var all: [String: TenantBridge]
    }

    private let state: Lock<State>

    init(directory: BridgeTenants, tenants: [String: TenantBridge]) {
        state = Lock(State(directory: directory, all: tenants))
    }

    /// The tenants new clients are matched against.
    var directory: BridgeTenants { state.withLock { $0.directory } }

    /// Every tenant's state, by name, the dropped ones too.
    var all: [String: TenantBridge] { state.withLock { $0.all } }

    /// The state of the tenant `peer` belongs to, or nil (no tenant names it).
    func tenant(for peer: TLSCertificate) -> TenantBridge? {
        state.withLock { state in state.directory.tenant(for: peer).flatMap { state.all[$0.name] } }
    }

    /// New clients are matched against `directory` from now on; `added` are the states of
    /// its tenants not known before.
    func replace(directory: BridgeTenants, adding added: [String: TenantBridge]) {
        state.withLock { state in
            state.directory = directory
            state.all.merge(added) { old, _ in old }
        }
    }
}
