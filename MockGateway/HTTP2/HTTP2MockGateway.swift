import APNSupport
public import APNTLS
import APNHTTP2
import APNGatewayServer

/// A faithful, scriptable stand-in for Apple's HTTP/2 provider API (`api.push.apple.com`),
/// over TLS on loopback — ALPN `h2`, or no ALPN at all (HTTP/2 with prior knowledge), as
/// Apple accepts both: the executable specification the ``APN`` provider
/// and other languages' clients are tested against.
///
/// It validates each request as Apple documents (method, path, device token, headers,
/// payload; certificate or provider-token authentication), answers with Apple's status,
/// `{"reason":…}` body and `apns-id`, records every accepted notification, and injects the
/// ``Faults`` a real gateway shows: refusals by token, `Unregistered` with its timestamp,
/// throttling, server errors, GOAWAY, resets, slow answers and idle timeouts.
///
/// ```swift
/// let gateway = try HTTP2MockGateway()
/// try gateway.start()
/// defer { gateway.stop() }
/// let client = try gateway.certificateAuthority.issueClientCertificate(topic: "com.example.app")
/// // … connect to 127.0.0.1:gateway.port (offering ALPN "h2", or none), trusting
/// //   gateway.certificateAuthority.certificate …
/// _ = gateway.waitForRecords(count: 3, timeout: .seconds(5))
/// ```
///
/// ## Concurrency model
/// The binary ``MockGateway``'s, with the same parts:
/// - One accept thread, owning the `TLSListener`.
/// - One thread per connection, at most ``Configuration/maxConnections``, owning its
///   `TLSConnection` (handed over in a `Handoff`) and its nghttp2 server session. It waits
///   in `poll()` for at most 50 ms or until its next timer (a held answer, the idle
///   timeouts), checking the stop flag between waits. A connection that cannot get a thread
///   is closed and counted, never leaked.
/// - Everything shared — faults, records, counters — is one value in a `Mutex`. A
///   connection judges all the requests one read brought in one critical section, so
///   records are in a single global order and counting faults count exactly.
/// - Waiting (``waitForRecords(count:timeout:)``, ``stop(timeout:)``) is a condition wait
///   with a deadline; nothing sleeps.
/// - The public API is thread-safe and may be called from any thread or task.
public final class HTTP2MockGateway: Sendable {
    /// The configuration it was created with.
    public let configuration: Configuration
    /// The CA that issued the server certificate (unless one was given) and signs the
    /// client certificates the gateway accepts (unless others were given): issue client
    /// certificates from it, and trust its certificate in clients.
    public let certificateAuthority: CertificateAuthority
    let shared: GatewayState<HTTP2Ledger>
    private let context: TLSServerContext
    private let settings: HTTP2ConnectionSettings
    private let run = GatewayRun<UInt16>(name: "HTTP2MockGateway", acceptThreads: "accept thread")

    /// Prepares a gateway: generates the CA and server certificate that are not given and
    /// builds the TLS server context (ALPN `h2`; a client offering no ALPN is served too).
    /// Nothing listens until ``start()``.
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
            commonName: "HTTP2MockGateway CA")
        context = try TLSServerContext(
            credentials: certificates.credentials,
            clientCertificateAuthorities: configuration.requestsClientCertificate
                ? certificates.clientAuthorities(configuration.clientCertificateAuthorities) : [],
            requiresClientCertificate: false,
            minimumVersion: configuration.minimumVersion,
            requestsClientCertificate: configuration.requestsClientCertificate,
            applicationProtocols: ["h2"])
        var session = HTTP2Session.Configuration()
        session.maxConcurrentStreams = configuration.maxConcurrentStreams
        // Room above Apple's payload limits, so an oversized payload gets Apple's 413
        // rather than a reset stream.
        session.maxBodySize = max(
            session.maxBodySize, configuration.payloadLimit + 1, configuration.voipPayloadLimit + 1,
            configuration.broadcastPayloadLimit + 1)
        settings = HTTP2ConnectionSettings(
            validator: RequestValidator(rules: RequestValidator.Rules(configuration)),
            streamsUntilTokenVerified: configuration.streamsUntilTokenVerified,
            authentication: ConnectionAuthenticator.Rules(configuration), session: session,
            certificateTopics: configuration.certificateTopics, environment: configuration.environment,
            sendsUniqueID: configuration.sendsUniqueID,
            handshakeTimeout: configuration.handshakeTimeout, lingerTimeout: configuration.lingerTimeout,
            idleTimeout: configuration.idleTimeout)
        certificateAuthority = certificates.authority
        shared = try GatewayState(
            HTTP2Ledger(
                faults: configuration.faults, retention: configuration.recordRetention,
                channels: ChannelRegistry(
                    limit: configuration.channelLimit, seed: configuration.channelIDSeed ?? .random(in: 0...UInt64.max))),
            threadStarter: threadStarter)
        self.configuration = configuration
    }

    deinit {
        stop()
    }

    /// Binds the listener (on ``Configuration/host``, by default on a port the system
    /// chooses) and starts accepting.
    ///
    /// - Precondition: called once, before ``stop(timeout:)``.
    /// - Throws: `TLSError` (``TLSError/Kind-swift.struct/listen``) when it cannot bind (or
    ///   its address cannot be resolved), or the accept thread cannot be started.
    public func start() throws(TLSError) {
        let listener = try TLSListener(
            context: context, host: configuration.host, port: configuration.port, backlog: ConnectionLimits.listenBacklog)
        let settings = settings
        // The idle timeout is the connection loop's (it reads the socket itself).
        let limits = ConnectionLimits(maxConnections: configuration.maxConnections, idleTimeout: nil)
        let shared = shared
        try run.start(listener.port, state: shared) {
            AcceptLoop.start(listener, name: "h2mock", server: shared.server, limits: limits) { driver in
                HTTP2GatewayConnection(driver: driver, shared: shared, settings: settings).run()
            }
        }
    }

    /// Stops accepting, ends every connection (within about 50 ms, answers still held
    /// included) and waits up to `timeout` for all of the gateway's threads to finish.
    /// Safe to call more than once and before ``start()``; also done on deinit.
    ///
    /// - Returns: the final ``Summary``; its ``Summary/stoppedCleanly`` says whether every
    ///   thread finished in time.
    @discardableResult
    public func stop(timeout: Duration = .seconds(5)) -> Summary {
        let finished = run.stop(shared, timeout: timeout)
        var summary = self.summary
        summary.stoppedCleanly = finished
        return summary
    }

    /// The port the listener bound; 0 before ``start()``.
    public var port: UInt16 {
        run.ports ?? 0
    }
}
