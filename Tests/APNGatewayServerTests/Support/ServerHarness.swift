import APNSupport
import APNTLS
import APNWire
import APNGatewayServer
import Synchronization
import APNTestSupport

/// The server core started on loopback with fresh certificates and the policy and source
/// a test gives — no mock involved — and a client context its CA issued a certificate for.
/// Stops the server when released.
final class ServerHarness {
    let server: ServerState
    let gatewayPort: UInt16
    let feedbackPort: UInt16
    private let clientContext: TLSClientContext

    init(policy: some BinaryGatewayPolicy, source: some FeedbackSource) throws {
        let certificates = try GatewayCertificates(authority: nil, credentials: nil, commonName: "APNGatewayServerTests CA")
        let context = try TLSServerContext(
            credentials: certificates.credentials, clientCertificateAuthorities: [certificates.authority.certificate])
        let client = try certificates.authority.issueClientCertificate(topic: "com.example.app")
        clientContext = try TLSClientContext(
            trustedCertificates: [certificates.authority.certificate], credentials: client.credentials())
        server = try ServerState()
        let gateway = try TLSListener(context: context)
        let feedback = try TLSListener(context: context)
        gatewayPort = gateway.port
        feedbackPort = feedback.port
        let settings = ConnectionSettings(
            limits: .init(), handshakeTimeout: .seconds(5), lingerTimeout: .milliseconds(200))
        let limits = ConnectionLimits(maxConnections: 8, idleTimeout: .seconds(30))
        let started = AcceptLoop.startGateway(
            gateway, name: "test-gw", server: server, limits: limits, settings: settings, policy: policy)
            && AcceptLoop.startFeedback(
                feedback, name: "test-fb", server: server, limits: limits, settings: settings, source: source)
        guard started else { throw TLSError(.listen, "the test server's accept threads did not start") }
    }

    deinit {
        server.requestStop()
        _ = server.waitForThreads(until: .now + .seconds(5))
    }

    /// A client connected to the gateway (or feedback) listener, handshake done.
    func connect(feedback: Bool = false) throws -> TestClient {
        let connection = try TLSConnection.connect(
            host: "127.0.0.1", port: feedback ? feedbackPort : gatewayPort, context: clientContext, timeout: .seconds(5))
        try connection.handshake(deadline: .now + .seconds(5))
        return TestClient(connection)
    }
}

/// What a test's handlers saw, shared with the test: `Sendable` through its lock.
final class Seen: Sendable {
    struct State {
        var identifiers: [UInt32] = []
        var peers: [String?] = []
        var closed = 0
        var inputEnded = 0
        var answer: (status: UInt8, identifier: UInt32)?
        var settled: [Bool] = []
    }

    private let state = Mutex(State())
    /// Raised by the handlers whenever they change ``state``, so tests wait without sleeping.
    let changed: WakeSignal

    init() throws {
        changed = try WakeSignal()
    }

    func update(_ change: (inout State) -> Void) {
        state.withLock { change(&$0) }
        changed.signal()
    }

    var current: State { state.withLock { $0 } }

    /// Waits until `predicate` holds, or 10 seconds pass; returns whether it held.
    func wait(until predicate: (State) -> Bool) -> Bool {
        let deadline = ContinuousClock.now + .seconds(10)
        while !predicate(current) {
            guard changed.wait(until: deadline) else { return predicate(current) }
            changed.reset()
        }
        return true
    }
}
