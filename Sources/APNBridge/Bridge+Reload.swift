@_spi(APNBridge) import APN
import APNSupport
import APNTLS
import Synchronization

extension Bridge {
    /// What a ``Bridge/reload(_:)`` did.
    public struct Reload: Sendable, Equatable {
        /// Tenants new in the configuration: clients with their certificates are served from now on.
        public var added: [String] = []
        /// Tenants kept: their credentials were read again and are used for what is
        /// forwarded from now on.
        public var reloaded: [String] = []
        /// Tenants no longer in the configuration: new clients of theirs are refused; the
        /// connections they have open carry on.
        public var removed: [String] = []
        /// Settings that differ but take effect only at a start (`port`,
        /// `tenants.NAME.topic`, …): they were not applied.
        public var needsRestart: [String] = []

        /// None yet.
        public init() {}
    }

    /// Applies `new` without a restart (the bridge's SIGHUP): the server certificate, key
    /// and client CAs (and TLS version and tickets) for connections accepted from now on;
    /// the tenants — added, dropped, and every kept one's credentials read again — for
    /// clients connecting from now on and for what is forwarded from now on. Connections
    /// already open carry on undisturbed, with their tenant and their TLS session; nothing
    /// in flight is lost or sent twice. Everything is read and checked before anything
    /// changes: a failure changes nothing. Settings that cannot change while running
    /// (listeners, store, limits, upstream address) are named in
    /// ``Reload/needsRestart`` and left as they are.
    ///
    /// - Throws: `TLSError` for server credentials the context refuses, `ProviderError`
    ///   (``ProviderError/Code/authentication``) for a tenant's credentials that do not load,
    ///   ``BridgeConfigurationError`` once ``stop(grace:)`` has begun.
    public func reload(_ new: Configuration) throws -> Reload {
        // A tenant added now would never be withdrawn by the stop under way.
        guard core.isAccepting else { throw BridgeConfigurationError("the bridge is stopping: nothing reloaded") }
        let old = configuration
        var reload = Reload()
        reload.needsRestart = Self.settingsNeedingRestart(old, new)
        let serverContext = try Self.serverContext(new)
        let known = core.tenants
        var credentials: [(TenantBridge, Provider.LoadedCredentials)] = []
        var added: [String: TenantBridge] = [:]
        var addedCredentials: [String: Provider.LoadedCredentials] = [:]
        for tenant in new.tenants.all {
            if let existing = known[tenant.name] {
                if existing.tenant.topic != tenant.topic { reload.needsRestart.append("tenants.\(tenant.name).topic") }
                if existing.tenant.pushType != tenant.pushType {
                    reload.needsRestart.append("tenants.\(tenant.name).push_type")
                }
                credentials.append((existing, try existing.provider.loadCredentials(tenant.providerOptions(old.upstream))))
                reload.reloaded.append(tenant.name)
            } else {
                // Checked before its provider exists, as the start checks them.
                let options = tenant.providerOptions(old.upstream)
                addedCredentials[tenant.name] = try Provider.loadCredentials(options, onto: options)
                reload.added.append(tenant.name)
            }
        }
        // Everything loaded: from here on nothing can fail.
        for tenant in new.tenants.all {
            guard let credentials = addedCredentials[tenant.name] else { continue }
            added[tenant.name] = makeTenant(tenant, credentials)
        }
        reload.removed = old.tenants.all.map(\.name).filter { name in !new.tenants.all.contains { $0.name == name } }
        context.replace(with: serverContext)
        for (tenant, loaded) in credentials { tenant.provider.useCredentials(loaded) }
        core.table.replace(directory: new.tenants, adding: added)
        core.budget.setLimit(new.maxInFlight)
        current.withLock { configuration in
            configuration.serverCredentials = new.serverCredentials
            configuration.clientCertificateAuthorities = new.clientCertificateAuthorities
            configuration.maximumTLSVersion = new.maximumTLSVersion
            configuration.sessionTickets = new.sessionTickets
            configuration.tenants = new.tenants
            configuration.maxInFlight = new.maxInFlight
        }
        return reload
    }

    /// The TLS server context `configuration` describes.
    static func serverContext(_ configuration: Configuration) throws(TLSError) -> TLSServerContext {
        try TLSServerContext(
            credentials: configuration.serverCredentials,
            clientCertificateAuthorities: configuration.clientCertificateAuthorities, requiresClientCertificate: true,
            maximumVersion: configuration.maximumTLSVersion, sessionTickets: configuration.sessionTickets)
    }

    /// The settings that differ between `old` and `new` and apply only at a start.
    static func settingsNeedingRestart(_ old: Configuration, _ new: Configuration) -> [String] {
        var names: [String] = []
        func check<T: Equatable>(_ name: String, _ value: (Configuration) -> T) {
            if value(old) != value(new) { names.append(name) }
        }
        check("host", \.host)
        check("port", \.gatewayPort)
        check("feedback_port", \.feedbackPort)
        check("store", \.storePath)
        check("window", \.window)
        check("max_connections", \.maxConnections)
        check("idle_timeout", \.idleTimeout)
        check("frame_timeout", \.frameTimeout)
        check("resend_retention", \.resendRetention)
        check("resend_capacity", \.resendCapacity)
        check("journal_credit", \.journalCredit)
        check("max_unjournaled", \.maxUnjournaled)
        check("upstream", { "\($0.upstream.host):\($0.upstream.port)" })
        check("sandbox", \.upstream.production)
        check("max_streams", \.upstream.maxConcurrentStreams)
        check("proxy", \.upstream.proxy)
        return names
    }
}
