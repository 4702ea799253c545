import APNSupport
import APN
import APNTLS
import Foundation
import APNMockGateway
import Synchronization

/// An HTTP/2 mock gateway with a provider-token key, and `Provider.Options` that reach it
/// (trusting its CA), for the provider's tests.
struct ProviderFixture {
    static let keyID = "KEYID12345"
    static let teamID = "TEAMID1234"
    static let topic = "com.example.app"

    let gateway: HTTP2MockGateway
    let signingKey: ES256SigningKey
    /// The wall clock both ends read (provider tokens' `iat` and their age at the gateway).
    let clock: WallClock

    init(
        keyID: String = ProviderFixture.keyID, teamID: String = ProviderFixture.teamID,
        configure: (inout HTTP2MockGateway.Configuration) -> Void = { _ in }
    ) throws {
        signingKey = try ES256SigningKey.generate()
        let clock = WallClock()
        self.clock = clock
        var configuration = HTTP2MockGateway.Configuration(
            providerKeys: [keyID: .init(teamID: teamID, key: signingKey.verificationKey)],
            wallClock: { clock.now })
        configure(&configuration)
        gateway = try HTTP2MockGateway(configuration: configuration)
        try gateway.start()
    }

    /// Options for token authentication against the mock.
    func tokenOptions() throws -> Provider.Options {
        var options = try baseOptions()
        options.authentication = .token(
            keyID: Self.keyID, teamID: Self.teamID, key: .data(Array(signingKey.pkcs8PEM().utf8)))
        options.topic = Self.topic
        return options
    }

    /// Options that reach the mock and trust it, with no authentication set.
    func mockOptions() throws -> Provider.Options {
        try baseOptions()
    }

    /// Points README-style `options` (a `.p8` file named, Apple's sandbox) at the mock: the
    /// fixture's signing key under `keyID` and `teamID`, the mock's address, port and CA.
    func redirect(_ options: inout Provider.Options, keyID: String, teamID: String) throws {
        let mock = try mockOptions()
        options.authentication = .token(keyID: keyID, teamID: teamID, key: .data(Array(signingKey.pkcs8PEM().utf8)))
        options.address = mock.address
        options.port = mock.port
        options.ca = mock.ca
    }

    /// Options for certificate authentication, with a push certificate for `topic`.
    func certificateOptions(topic: String = ProviderFixture.topic) throws -> Provider.Options {
        var options = try baseOptions()
        let client = try gateway.certificateAuthority.issueClientCertificate(topic: topic)
        options.authentication = .certificate
        options.cert = .data(Array(try client.certificate.pem().utf8))
        options.key = .data(Array(try client.privateKey.pem().utf8))
        return options
    }

    private func baseOptions() throws -> Provider.Options {
        var options = Provider.Options()
        options.address = "127.0.0.1"
        options.port = gateway.port
        options.ca = [.data(Array(try gateway.certificateAuthority.certificate.pem().utf8))]
        options.currentDate = { [clock] in clock.now }
        options.requestTimeout = .seconds(20)
        options.initialBackoff = .milliseconds(5)
        options.maxBackoff = .milliseconds(40)
        return options
    }

    static func device(_ number: Int) -> Device {
        var bytes = [UInt8](repeating: 0xA5, count: 32)
        withUnsafeBytes(of: UInt64(number).bigEndian) { bytes.replaceSubrange(0..<8, with: $0) }
        return try! Device(token: bytes)
    }
}

/// A wall clock tests move (provider tokens' ages), shared by provider and gateway: it
/// starts at the real time and stands still until advanced, so ages are exact however
/// long a loaded machine takes.
final class WallClock: Sendable {
    private let current = Lock(Date())
    var now: Date { current.withLock { $0 } }
    func advance(by seconds: TimeInterval) { current.withLock { $0 += seconds } }
}
