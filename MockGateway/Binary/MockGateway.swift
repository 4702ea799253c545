import APNSupport
public import APNTLS
import APNGatewayServer

/// A faithful, scriptable stand-in for Apple's binary push gateway (port 2195 protocol)
/// and feedback service (port 2196 protocol), over mutual TLS on loopback.
///
/// It validates commands 0, 1 and 2 exactly as Apple did (``GatewayDecoder``), answers a
/// refused notification with the 6-byte error response and closes, records every accepted
/// notification, and injects the ``Faults`` that lost notifications in the past.
///
/// ```swift
/// let gateway = try MockGateway()
/// try gateway.start()
/// defer { gateway.stop() }
/// let client = try gateway.certificateAuthority.issueClientCertificate(topic: "com.example.app")
/// // … connect to 127.0.0.1:gateway.gatewayPort trusting gateway.certificateAuthority.certificate …
/// _ = gateway.waitForRecords(count: 3, timeout: .seconds(5))
/// ```
///
/// ## Concurrency model
/// The threads, sockets and waits are the server core's (the `APNGatewayServer` target); the
/// mock plugs in its decisions and its record (`ScriptedConnection`) and its feedback queue.
/// - One accept thread per listener (gateway, feedback). It owns its `TLSListener`.
/// - One thread per accepted connection, at most ``Configuration/maxConnections`` per
///   listener. It owns its `TLSConnection` (handed over in a `Handoff`) and drives it with
///   non-blocking steps and `poll()` waits of at most 50 ms, checking the stop flag between
///   them and before every read. A connection silent for ``Configuration/idleTimeout`` is
///   closed. One that cannot get a thread is closed and counted, never leaked.
/// - Everything shared — faults, records, rejections, connection counts, the feedback
///   queue — is a single value in a `Mutex` (the connections the server closed on its own
///   are counted in the core's). Judging a notification and recording it happen in one
///   critical section, so records are in a single global order.
/// - Waiting (``waitForRecords(count:timeout:)``, the error-response delay, ``stop(timeout:)``)
///   is a condition wait with a deadline; nothing sleeps.
/// - The public API is thread-safe and may be called from any thread or task. It blocks
///   only where it says it waits.
public final class MockGateway: Sendable {
    /// The configuration it was created with.
    public let configuration: Configuration
    /// The CA that issued the server certificate (unless one was given) and signs the
    /// client certificates the gateway accepts (unless others were given): issue client
    /// certificates from it, and trust its certificate in clients.
    public let certificateAuthority: CertificateAuthority
    let shared: SharedState
    private let context: TLSServerContext
    private let run = GatewayRun<(gateway: UInt16, feedback: UInt16)>(name: "MockGateway", acceptThreads: "accept threads")

    /// Prepares a gateway: generates the CA and server certificate that are not given and
    /// builds the TLS server context. Nothing listens until ``start()``.
    ///
    /// - Throws: `TLSError` when certificates cannot be generated or the context refuses
    ///   the settings.
    public convenience init(configuration: Configuration = Configuration()) throws(TLSError) {
        try self.init(configuration: configuration, threadStarter: .system)
    }

    /// ``init(configuration:)`` starting its threads with `threadStarter` (tests give one
    /// that fails).
    init(configuration: Configuration, threadStarter: ThreadStarter) throws(TLSError) {
        let certificates = try GatewayCertificates(
            authority: configuration.certificateAuthority, credentials: configuration.serverCredentials,
            commonName: "MockGateway CA")
        context = try TLSServerContext(
            credentials: certificates.credentials,
            clientCertificateAuthorities: configuration.requiresClientCertificate
                ? certificates.clientAuthorities(configuration.clientCertificateAuthorities) : [],
            requiresClientCertificate: configuration.requiresClientCertificate,
            minimumVersion: configuration.minimumVersion,
            maximumVersion: configuration.maximumVersion,
            sessionTickets: configuration.sessionTickets)
        certificateAuthority = certificates.authority
        shared = try SharedState(
            Ledger(faults: configuration.faults, retention: configuration.recordRetention), threadStarter: threadStarter)
        self.configuration = configuration
    }

    deinit {
        stop()
    }

    /// Binds the gateway and feedback listeners (on ``Configuration/host``, by default on
    /// ports the system chooses) and starts accepting.
    ///
    /// - Precondition: called once, before ``stop(timeout:)``.
    /// - Throws: `TLSError` (``TLSError/Kind-swift.struct/listen``) when a listener cannot
    ///   bind (or its address cannot be resolved), or an accept thread cannot be started.
    public func start() throws(TLSError) {
        let backlog = ConnectionLimits.listenBacklog
        let gateway = try TLSListener(
            context: context, host: configuration.host, port: configuration.gatewayPort, backlog: backlog)
        let feedback = try TLSListener(
            context: context, host: configuration.host, port: configuration.feedbackPort, backlog: backlog)
        let settings = ConnectionSettings(
            limits: configuration.limits, handshakeTimeout: configuration.handshakeTimeout,
            lingerTimeout: configuration.lingerTimeout, heldByteLimit: Faults.latencyBufferLimit)
        let limits = ConnectionLimits(maxConnections: configuration.maxConnections, idleTimeout: configuration.idleTimeout)
        let server = shared.server
        try run.start((gateway.port, feedback.port), state: shared) {
            AcceptLoop.startGateway(
                gateway, name: "mock-gw", server: server, limits: limits, settings: settings,
                policy: ScriptedGateway(shared: shared))
                && AcceptLoop.startFeedback(
                    feedback, name: "mock-fb", server: server, limits: limits, settings: settings,
                    source: QueuedFeedback(shared: shared))
        }
    }

    /// Stops accepting, ends every connection (within about 50 ms) and waits up to
    /// `timeout` for all of the gateway's threads to finish. Safe to call more than once
    /// and before ``start()``; also done on deinit.
    ///
    /// - Returns: `true` when every thread finished in time.
    @discardableResult
    public func stop(timeout: Duration = .seconds(5)) -> Bool {
        run.stop(shared, timeout: timeout)
    }

    /// The port the gateway listener bound; 0 before ``start()``.
    public var gatewayPort: UInt16 {
        run.ports?.gateway ?? 0
    }

    /// The port the feedback listener bound; 0 before ``start()``.
    public var feedbackPort: UInt16 {
        run.ports?.feedback ?? 0
    }
}
