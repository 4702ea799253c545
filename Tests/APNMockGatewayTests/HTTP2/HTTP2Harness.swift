import APNSupport
import APNHTTP2
import APNTLS
import Foundation
import APNMockGateway
import Synchronization
import APNTestSupport

/// A started HTTP/2 gateway with fresh certificates and a provider key, a wall clock the
/// test moves, and clients for either kind of authentication. Stops the gateway when released.
final class HTTP2Harness {
    static let topic = "com.example.app"
    static let keyID = "KEY1234567"
    static let teamID = "TEAM123456"

    let gateway: HTTP2MockGateway
    let clock: WallClock
    let signingKey: ES256SigningKey

    init(
        faults: HTTP2MockGateway.Faults = HTTP2MockGateway.Faults(),
        configure: (inout HTTP2MockGateway.Configuration) -> Void = { _ in }
    ) throws {
        let clock = WallClock()
        let signingKey = try ES256SigningKey.generate()
        var configuration = HTTP2MockGateway.Configuration(
            providerKeys: [Self.keyID: .init(teamID: Self.teamID, key: signingKey.verificationKey)],
            wallClock: { clock.now }, faults: faults)
        configure(&configuration)
        gateway = try HTTP2MockGateway(configuration: configuration)
        self.clock = clock
        self.signingKey = signingKey
        try gateway.start()
    }

    deinit {
        gateway.stop()
    }

    /// A client context offering `h2` (or `protocols`), presenting a push certificate for
    /// `topic` from the gateway's CA (or from `authority`), or none.
    func context(
        certificateTopic: String? = topic, authority: CertificateAuthority? = nil, protocols: [String] = ["h2"]
    ) throws -> TLSClientContext {
        let credentials = try certificateTopic.map { topic in
            try (authority ?? gateway.certificateAuthority).issueClientCertificate(topic: topic).credentials()
        }
        return try TLSClientContext(
            trustedCertificates: [gateway.certificateAuthority.certificate], credentials: credentials,
            applicationProtocols: protocols)
    }

    /// A client authenticated by a certificate for `topic`, connected and handshaken.
    func certificateClient(topic: String = topic, configuration: HTTP2Session.Configuration = .init()) throws
        -> HTTP2TestClient
    {
        try HTTP2TestClient.connect(port: gateway.port, context: context(certificateTopic: topic), configuration: configuration)
    }

    /// A client without a certificate, for provider tokens.
    func tokenClient() throws -> HTTP2TestClient {
        try HTTP2TestClient.connect(port: gateway.port, context: context(certificateTopic: nil))
    }

    /// A provider token issued `age` before the wall clock's now, signed with `key` (the
    /// gateway's by default), as `authorization` carries it.
    func bearer(
        age: Int64 = 0, keyID: String = keyID, teamID: String = teamID, key: ES256SigningKey? = nil
    ) throws -> String {
        let claims = ProviderTokenClaims(
            keyID: keyID, teamID: teamID, issuedAt: Int64(clock.now.timeIntervalSince1970) - age)
        return "bearer " + (try JSONWebToken.sign(claims, with: key ?? signingKey))
    }
}

/// A wall clock a test sets and moves.
final class WallClock: Sendable {
    private let time = Lock(Date(timeIntervalSince1970: 1_700_000_000))

    var now: Date { time.withLock { $0 } }

    func advance(by seconds: TimeInterval) {
        time.withLock { $0 += seconds }
    }
}

/// A 64-hex-digit device token made from `seed`.
func deviceToken(_ seed: Int) -> String {
    let byte = String(UInt8(truncatingIfNeeded: seed), radix: 16)
    return String(repeating: byte.count == 1 ? "0" + byte : byte, count: 32)
}

/// A small JSON payload naming `number`.
func h2Payload(_ number: Int) -> [UInt8] {
    Array(#"{"aps":{"alert":"n\#(number)"}}"#.utf8)
}

/// The header fields of a request to Apple's API for `token`; `nil` leaves a field out.
func apnsRequest(
    token: String = deviceToken(1), method: String = "POST", path: String? = nil,
    topic: String? = HTTP2Harness.topic, pushType: String? = "alert", priority: String? = "10",
    expiration: String? = "0", collapseID: String? = nil, apnsID: String? = nil, authorization: String? = nil,
    extra: [HTTP2Header] = []
) -> [HTTP2Header] {
    var headers = [
        HTTP2Header(":method", method), HTTP2Header(":scheme", "https"),
        HTTP2Header(":path", path ?? "/3/device/" + token), HTTP2Header(":authority", "api.push.apple.com"),
    ]
    let optional: [(String, String?)] = [
        ("authorization", authorization), ("apns-topic", topic), ("apns-push-type", pushType),
        ("apns-priority", priority), ("apns-expiration", expiration), ("apns-collapse-id", collapseID),
        ("apns-id", apnsID),
    ]
    for case (let name, let value?) in optional { headers.append(HTTP2Header(name, value)) }
    return headers + extra
}
