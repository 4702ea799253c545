@_spi(APNBridge) import APN
import APNFeedbackStore
import APNSupport
public import APNTLS
import Dispatch
import Foundation
import APNGatewayServer
import Synchronization

/// The bridge (issue #24): a binary gateway and feedback server, Apple's port 2195 and
/// 2196 protocols, in front of Apple's HTTP/2 API. Each client certificate names a
/// tenant; its notifications go out through the tenant's `Provider`, its answers come
/// back as Apple's binary gateway gave them (``BridgeSession`` decides what and when), and
/// its 410s become feedback tuples served on the feedback port.
///
/// ## Threads
/// The server core's: an accept thread per listener, a thread per client connection. Each
/// tenant has one `Provider` (one I/O thread) whose answers arrive on that thread, and all
/// of a tenant's state is under one lock (``TenantBridge``). With a store configured, one
/// more thread writes feedback to SQLite, so the provider's thread never waits on disk.
///
/// ```swift
/// let bridge = try Bridge(configuration: configuration)
/// try bridge.start()
/// // … clients connect to bridge.gatewayPort …
/// let summary = bridge.stop(grace: .seconds(5))
/// ```
public final class Bridge: Sendable {
    /// The configuration in effect: the one it was made with, and what reloads
    /// (``reload(_:)``) changed of it.
    public var configuration: Configuration { current.withLock { $0 } }
    /// The label of what the bridge logs through ``Configuration/logHandler``
    /// (`swift-apn.bridge`), for a handler that routes or drops it (the bridge's own events
    /// also reach ``Configuration/log``).
    public static let logLabel = ComponentLog.Label.bridge
    let current: Lock<Configuration>
    let core: BridgeCore
    private let server: ServerState
    /// The server context new connections get; a reload replaces it.
    let context: TLSServerContextSlot
    /// Makes a tenant's state, at the start and for a tenant a reload adds.
    /// Its credentials as read (``Provider/loadCredentials(_:onto:)``), so that the key
    /// files checked are the ones used, however they change later.
    let makeTenant: @Sendable (BridgeTenant, Provider.LoadedCredentials) -> TenantBridge
    let log: @Sendable (BridgeEvent) -> Void
    private let lifecycle = GatewayLifecycle<(gateway: UInt16, feedback: UInt16)>()
    /// The journal's group commits, on the store's writer thread; nil without a store.
    private let journalPump: JournalPump?
    /// Takes over bridges on the same store that died; nil without a store.
    private let takeOver: BridgeTakeOverTask?

    /// Prepares the bridge: the TLS context, each tenant's provider, the feedback outbox.
    /// Nothing listens and nothing connects upstream until ``start()``.
    ///
    /// - Throws: `TLSError` for credentials the context refuses; `ProviderError`
    ///   (``ProviderError/Code/authentication``) for a tenant's key or certificate that does
    ///   not load; `StoreError` for a store that cannot be opened.
    public init(configuration: Configuration) throws {
        context = TLSServerContextSlot(try Self.serverContext(configuration))
        let server = try ServerState()
        self.server = server
        let events = configuration.log
        let bridgeLog = ComponentLog(configuration.logHandler, label: ComponentLog.Label.bridge)
        let log: @Sendable (BridgeEvent) -> Void = { event in
            bridgeLog.record(event)
            events?(event)
        }
        var upstreamOptions = configuration.upstream
        upstreamOptions.logHandler = configuration.logHandler
        let upstream = upstreamOptions
        let outbox = try FeedbackOutbox(path: configuration.storePath, log: log) { server.wakeWaiters() }
        let origin = ContinuousClock.now
        let originMilliseconds = Int64((Date().timeIntervalSince1970 * 1_000).rounded())
        // Random per start: a row's key in the store is (instance, serial or seq).
        let instance = Int64.random(in: 1...Int64.max)
        let sequence = JournalSequence()
        let budget = InFlightBudget(limit: configuration.maxInFlight)
        let credit = configuration.journalCredit
            ?? max(1, configuration.upstream.maxConnections * configuration.upstream.maxConcurrentStreams)
        let makeTenant: @Sendable (BridgeTenant, Provider.LoadedCredentials) -> TenantBridge = { tenant, credentials in
            let record = ResendRecord(
                retention: configuration.resendRetention, capacity: configuration.resendCapacity,
                journaling: outbox.keepsResendRecord)
            var rows: ResendRecordRows?
            var journal: (ForwardJournal, JournalSequence)?
            if outbox.keepsResendRecord {
                let tenantRows = ResendRecordRows(instance: instance, tenant: tenant.name, originMilliseconds: originMilliseconds)
                rows = tenantRows
                journal = (
                    ForwardJournal(rows: tenantRows, credit: credit, unconfirmedLimit: configuration.maxUnjournaled), sequence
                )
            }
            let provider = Provider(options: tenant.providerOptions(upstream))
            // Before anything is sent: read now, not at the first request (node-apn's way),
            // when the file may have been replaced for the next reload already.
            provider.useCredentials(credentials)
            return TenantBridge(
                tenant: tenant, provider: provider,
                outbox: outbox, server: server, origin: origin, window: configuration.window,
                record: record, quietPeriod: configuration.collectionQuietPeriod, recordRows: rows, journal: journal,
                budget: budget, log: log)
        }
        self.makeTenant = makeTenant
        self.log = log
        var tenants: [String: TenantBridge] = [:]
        for tenant in configuration.tenants.all {
            let options = tenant.providerOptions(upstream)
            tenants[tenant.name] = makeTenant(tenant, try Provider.loadCredentials(options, onto: options))
        }
        let table = BridgeTenantTable(directory: configuration.tenants, tenants: tenants)
        let takeOver = BridgeTakeOverTask(
            instance: instance, table: table, outbox: outbox, sequence: sequence,
            retention: configuration.resendRetention, log: log)
        if outbox.keepsResendRecord {
            // Registered (its lock held) before anything is taken over: two bridges starting
            // at once each see the other alive.
            try outbox.registerBridgeInstance(instance, startedAt: originMilliseconds)
            // What dead bridges left (a predecessor killed or stopped): before any client
            // connects, so its resends are answered from it.
            try takeOver.run()
        }
        self.takeOver = outbox.keepsResendRecord ? takeOver : nil
        journalPump = outbox.keepsResendRecord ? JournalPump(instance: instance, table: table, sequence: sequence) : nil
        let task = self.takeOver
        core = BridgeCore(table: table, outbox: outbox, budget: budget, log: log, beforeOpen: { try? task?.run() })
        current = Lock(configuration)
    }

    /// Binds both listeners and starts accepting.
    ///
    /// - Precondition: called once, before ``stop(grace:)``.
    /// - Throws: `TLSError` when a listener cannot bind or a thread cannot be started.
    public func start() throws(TLSError) {
        let backlog = ConnectionLimits.listenBacklog
        let configuration = configuration
        let gateway = try TLSListener(
            slot: context, host: configuration.host, port: configuration.gatewayPort, backlog: backlog,
            receiveBuffer: configuration.receiveBuffer)
        let feedback = try TLSListener(
            slot: context, host: configuration.host, port: configuration.feedbackPort, backlog: backlog)
        lifecycle.started((gateway.port, feedback.port), name: "Bridge")
        core.outbox.start(
            journal: journalPump, every: BridgeTakeOverTask.interval, maintenance: { [takeOver] in try? takeOver?.run() },
            lockLost: { [log] error in log(.storeLockLost(error: error)) })
        var settings = ConnectionSettings(
            limits: configuration.limits, handshakeTimeout: configuration.handshakeTimeout,
            lingerTimeout: configuration.lingerTimeout)
        settings.frameTimeout = configuration.frameTimeout
        let limits = ConnectionLimits(maxConnections: configuration.maxConnections, idleTimeout: configuration.idleTimeout)
        let started = AcceptLoop.startGateway(
            gateway, name: "bridge-gw", server: server, limits: limits, settings: settings, policy: BridgeGateway(core: core))
            && AcceptLoop.startFeedback(
                feedback, name: "bridge-fb", server: server, limits: limits, settings: settings,
                source: BridgeFeedback(core: core))
        guard started else {
            _ = stop(grace: .zero)
            throw TLSError(.listen, "starting the bridge's accept threads: the system refused a thread")
        }
        // Readiness knows whether each upstream takes a connection from the start.
        for tenant in core.tenants.values { tenant.reachability.refreshIfStale() }
    }

    /// The gateway port bound; 0 before ``start()``.
    public var gatewayPort: UInt16 { lifecycle.ports?.gateway ?? 0 }

    /// The feedback port bound; 0 before ``start()``.
    public var feedbackPort: UInt16 { lifecycle.ports?.feedback ?? 0 }

    /// What was done so far.
    public var summary: Summary {
        var summary = Summary()
        for (name, tenant) in core.tenants {
            let counts = tenant.counts
            summary.byTenant[name] = counts
            summary.counts.add(counts)
            summary.liveConnections[name] = tenant.liveCount
            summary.unjournaled[name] = tenant.unjournaledCount
            summary.waitingForStore += tenant.waitingForStoreCount
        }
        summary.feedbackStored = core.outbox.storedCount
        summary.feedbackServed = core.feedbackServed
        summary.feedbackLost = core.outbox.lostCount
        summary.refusedConnections = core.refusedConnections
        summary.unfinishedSessions = core.tenants.values.reduce(0) { $0 + $1.sessionCount }
        let ledger = core.budget.snapshot
        summary.held = ledger.used
        summary.heldPeak = ledger.peak
        summary.maxInFlight = ledger.limit
        summary.waitingForRoom = ledger.waiting
        summary.roomWaits = ledger.pauses
        return summary
    }

    /// Why the bridge should not be sent clients now (a balancer's readiness check), in
    /// words; empty when it should: its listeners are up and it is not stopping; every
    /// tenant's upstream takes a connection — TCP, TLS with the tenant's credentials (a
    /// push certificate is presented), HTTP/2 — probed at the start and again when the
    /// last probe is 30 s old (this call starts it and answers with the last result); no
    /// tenant's upstream is failing its notifications (a refused provider token, Apple
    /// unavailable after retries — until it accepts one again); and the store writes. A
    /// provider token is judged by the traffic only: Apple has no request that checks one
    /// without pushing.
    public func notReadyReasons() -> [String] {
        guard lifecycle.ports != nil else { return ["not listening"] }
        guard core.isAccepting else { return ["stopping"] }
        var reasons: [String] = []
        if storeLockLost { reasons.append("the store's session ended with this bridge's lock: stop it") }
        for (name, tenant) in core.tenants.sorted(by: { $0.key < $1.key }) {
            tenant.reachability.refreshIfStale()
            if let failure = tenant.upstreamFailure {
                reasons.append("tenant \(name): upstream failing (\(failure))")
            } else if let failure = tenant.reachability.failure {
                reasons.append("tenant \(name): upstream unreachable (\(failure))")
            }
        }
        if let failure = core.outbox.storeFailure { reasons.append("store failing (\(failure))") }
        return reasons
    }

    /// Probes every tenant's upstream now (see ``notReadyReasons()``) and waits for the
    /// results, at most `timeout`; then ``notReadyReasons()``.
    public func checkUpstreams(timeout: Duration) -> [String] {
        let probes = DispatchGroup()
        for tenant in core.tenants.values {
            probes.enter()
            tenant.reachability.probe { probes.leave() }
        }
        _ = probes.wait(timeout: .now() + .nanoseconds(timeout.wholeNanoseconds))
        return notReadyReasons()
    }

    /// Whether the store's PostgreSQL session ended, and with it this bridge's lock on the
    /// store (``BridgeEvent/storeLockLost(error:)``): another bridge may take its state
    /// over, and nothing it reads can be journaled or forwarded any more. Stop it; a new
    /// start takes over what it left. Always false without a store or on SQLite.
    public var storeLockLost: Bool { core.outbox.bridgeLockLost }

    /// What to do once the store is lost (``storeLockLost``): accepts no connection and reads
    /// nothing more, waits at most `grace` for the answers to what the providers were handed
    /// (marked sent in the store, so no other bridge forwards it again), and returns how
    /// many notifications were read and are not in the store. Nothing is told to the
    /// clients and nothing released: the process is to end now, as a crash would, because
    /// that is the path a restarted bridge or a peer on the store recovers exactly once
    /// (docs/PROTOCOL.md §8). `apn bridge` exits 1. The bridge is of no further use.
    public func abandon(grace: Duration) -> Int {
        core.stopAccepting()
        let tenants = Array(core.tenants.values)
        for tenant in tenants { _ = tenant.abandon() }
        _ = server.waitForChange(until: .now + grace) { tenants.allSatisfy { $0.outstandingCount == 0 } }
        // Again: a connection that had passed its gate may have read a last batch since.
        return tenants.reduce(0) { $0 + $1.abandon() }
    }

    /// How many feedback tuples wait to be served, by tenant (a tenant whose count the
    /// store could not give is left out). Asks the store: for a scrape, not a loop.
    public func feedbackPending() -> [String: Int] {
        var pending: [String: Int] = [:]
        for name in core.tenants.keys { pending[name] = core.outbox.pendingCount(tenant: name) }
        return pending
    }

    /// Waits until `predicate` holds for the ``summary`` or `deadline` passes (or the
    /// bridge stops); returns whether it held. Re-checked whenever an answer or a
    /// connection changes something.
    public func wait(until deadline: ContinuousClock.Instant, _ predicate: (Summary) -> Bool) -> Bool {
        server.waitForChange(until: deadline) { predicate(summary) }
    }

    /// How long ``stop(grace:)`` may take beyond its grace: withdrawing what the upstream
    /// has not answered, the connections' last writes, the threads' ends.
    public static let stopMargin: Duration = .seconds(2)

    /// Stops (SIGTERM): new connections are closed at once; every session stops reading
    /// and ends with status 10 once what it forwarded is answered, or when `grace` is over;
    /// the grace also waits for the answers due to connections their clients closed.
    /// Then nothing more goes upstream: every request not yet written is withdrawn (its
    /// client is told to resend it), and every one written and unanswered becomes maybe
    /// delivered (recorded, never forwarded again). The listeners, connections and
    /// providers close, and the stop returns within `grace` + ``stopMargin`` whatever the
    /// upstream does. Blocks, so call it from a thread of its own, not a Swift concurrency
    /// task.
    @discardableResult
    public func stop(grace: Duration) -> Summary {
        let start = ContinuousClock.now
        let end = start + grace + Self.stopMargin
        core.stopAccepting()
        let tenants = Array(core.tenants.values)
        for tenant in tenants { tenant.shutdown() }
        // Connections their clients already closed count too: nobody could be told that
        // what is withdrawn from them was not delivered.
        _ = server.waitForChange(until: start + grace) { tenants.allSatisfy { $0.unfinishedCount == 0 } }
        // Before any session is ended at the grace: once a client is told status 10,
        // nothing more of its connection may be written upstream (#41). The journal first:
        // what it holds back was never handed to a provider.
        for tenant in tenants { tenant.withdrawJournal() }
        let withdrawn = DispatchGroup()
        for tenant in tenants {
            withdrawn.enter()
            tenant.provider.withdraw { withdrawn.leave() }
        }
        _ = withdrawn.wait(timeout: .now() + .seconds(1))
        for tenant in tenants { tenant.graceExpired() }
        // The connections write their status 10 and close; a client that does not close
        // is lingered on at most `lingerTimeout`.
        let closing = min(ContinuousClock.now + configuration.lingerTimeout + .milliseconds(200), end)
        _ = server.waitForChange(until: closing) { tenants.allSatisfy { $0.liveCount == 0 } }
        lifecycle.stopped()
        server.requestStop()
        _ = server.waitForThreads(until: end)
        core.outbox.stop()
        // Everything is in the store: the next bridge may take this one's state over.
        if let takeOver { core.outbox.releaseBridgeInstance(takeOver.instance) }
        return summary
    }
}

