import APN
import APNBridge
import APNTLS
import Foundation
import APNMockGateway
import APNTestSupport

/// An HTTP/2 mock gateway standing in for Apple, and a started ``Bridge`` in front of it
/// with one tenant (`com.example.app`, token authentication), its own CA and a client
/// certificate of the tenant: what a binary `Connection` needs to reach the bridge.
final class BridgeFixture: Sendable {
    static let keyID = "KEYID12345"
    static let teamID = "TEAMID1234"
    static let topic = "com.example.app"

    let upstream: HTTP2MockGateway
    let bridge: Bridge
    let authority: CertificateAuthority
    let clientCertificatePEM: [UInt8]
    let clientKeyPEM: [UInt8]
    let caPEM: [UInt8]
    /// The configuration the bridge was made with: ``restarted()`` makes another from it.
    let configuration: Bridge.Configuration
    private let directory: URL
    /// The PostgreSQL schema holding the store, dropped at the end.
    private let postgresSchema: String?

    /// `wrongKey` gives the bridge a provider key the upstream does not know: every
    /// request is refused 403 `InvalidProviderToken`, a bridge failure.
    init(
        faults: HTTP2MockGateway.Faults = HTTP2MockGateway.Faults(), storeFeedback: Bool = false, wrongKey: Bool = false,
        upstreamStreams: UInt32 = 1000, postgresStore: Bool = false, configure: (inout Bridge.Configuration) -> Void = { _ in }
    ) throws {
        let signingKey = try ES256SigningKey.generate()
        let bridgeKey = wrongKey ? try ES256SigningKey.generate() : signingKey
        upstream = try HTTP2MockGateway(
            configuration: HTTP2MockGateway.Configuration(
                providerKeys: [Self.keyID: .init(teamID: Self.teamID, key: signingKey.verificationKey)],
                maxConcurrentStreams: upstreamStreams, faults: faults))
        try upstream.start()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("bridge-io-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let keyPath = directory.appendingPathComponent("key.p8")
        try Data(bridgeKey.pkcs8PEM().utf8).write(to: keyPath)

        authority = try CertificateAuthority(commonName: "Bridge test CA")
        let client = try authority.issueClientCertificate(topic: Self.topic)
        clientCertificatePEM = Array(try client.certificate.pem().utf8)
        clientKeyPEM = Array(try client.privateKey.pem().utf8)
        caPEM = Array(try authority.certificate.pem().utf8)

        let tenants = try BridgeTenants([
            BridgeTenant(
                name: "app", matches: [.userID(Self.topic)], topic: Self.topic,
                upstream: .token(keyID: Self.keyID, teamID: Self.teamID, p8: keyPath.path))
        ])
        var options = Provider.Options()
        options.address = "127.0.0.1"
        options.port = upstream.port
        options.ca = [.data(Array(try upstream.certificateAuthority.certificate.pem().utf8))]
        options.requestTimeout = .seconds(20)
        options.initialBackoff = .milliseconds(5)
        // 5xx retries as quick as the others: an outage of N failures then exhausts the
        // retries of the first requests it meets, rather than being used up by fresh ones
        // while they wait out Apple's one-second back-off (which made the outage test
        // depend on how fast the provider is).
        options.serverErrorBackoff = .milliseconds(5)
        options.maxBackoff = .milliseconds(40)
        var configuration = Bridge.Configuration(
            serverCredentials: try authority.issueServerCertificate().credentials(),
            clientCertificateAuthorities: [authority.certificate], tenants: tenants, upstream: options)
        configuration.handshakeTimeout = .seconds(60)
        configuration.lingerTimeout = .milliseconds(200)
        if storeFeedback { configuration.storePath = directory.appendingPathComponent("tokens.sqlite").path }
        if postgresStore {
            let schema = "apn_bridge_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
            configuration.storePath = try PostgresAdmin.location(schema: schema)
            postgresSchema = schema
        } else {
            postgresSchema = nil
        }
        configure(&configuration)
        self.configuration = configuration
        bridge = try Bridge(configuration: configuration)
        try bridge.start()
    }

    /// Another bridge with the same configuration and store, started (on new ports): the
    /// bridge after a restart. The caller stops it.
    func restarted() throws -> Bridge {
        let bridge = try Bridge(configuration: configuration)
        try bridge.start()
        return bridge
    }

    deinit {
        bridge.stop(grace: .seconds(2))
        _ = upstream.stop()
        try? FileManager.default.removeItem(at: directory)
        if let postgresSchema { PostgresAdmin.drop(schema: postgresSchema) }
    }

    /// Options reaching the bridge with the tenant's certificate, a 2 s grace window.
    func connectionOptions() -> Connection.Options {
        var options = Connection.Options()
        options.address = "127.0.0.1"
        options.port = bridge.gatewayPort
        options.cert = .data(clientCertificatePEM)
        options.key = .data(clientKeyPEM)
        options.ca = [.data(caPEM)]
        options.shutdownGraceWindow = .seconds(2)
        options.settleWindow = .zero
        return options
    }

    /// Options reading the bridge's feedback port with the tenant's certificate, once.
    func feedbackOptions() -> Feedback.Options {
        var options = Feedback.Options()
        options.address = "127.0.0.1"
        options.port = bridge.feedbackPort
        options.cert = .data(clientCertificatePEM)
        options.key = .data(clientKeyPEM)
        options.ca = [.data(caPEM)]
        options.interval = nil
        return options
    }

    /// How many times the upstream accepted each token (lowercase hex).
    func deliveries() -> [String: Int] {
        upstream.records.reduce(into: [:]) { $0[$1.token.lowercased(), default: 0] += 1 }
    }

    /// Waits, on a thread of its own, until the bridge's summary satisfies `predicate`.
    func wait(timeout: Duration = .seconds(30), _ predicate: @escaping @Sendable (Bridge.Summary) -> Bool) async -> Bool {
        let bridge = bridge
        return await onThread { bridge.wait(until: .now + timeout, predicate) }
    }
}

/// Runs a blocking wait on a thread of its own: blocking the cooperative pool could keep
/// the Task under test from running.
func onThread(_ body: @escaping @Sendable () -> Bool) async -> Bool {
    await withCheckedContinuation { continuation in
        Thread.detachNewThread { continuation.resume(returning: body()) }
    }
}

/// Distinct valid tokens: 32 bytes, the last four holding `n`.
func device(_ n: Int) -> Device {
    let bytes = [UInt8](repeating: 0xD0, count: 28) + withUnsafeBytes(of: UInt32(n).bigEndian) { Array($0) }
    return try! Device(token: bytes)
}

/// A notification whose payload names `n`.
func note(_ n: Int) -> APN.Notification {
    APN.Notification().setAlertText("n\(n)")
}
