import APNTestSupport
import APNTestTraits
import APNTLS
import Testing

/// Mutual TLS on loopback with generated certificates, and each refusal with its error.
@Suite(.threadPerTest) struct HandshakeTests {
    @Test(arguments: [TLSVersion.tls1_2, .tls1_3])
    func mutualHandshakeThenBytesBothWays(version: TLSVersion) throws {
        let fixture = try Fixture()
        let pair = try LoopbackPair(
            server: fixture.serverContext(), client: fixture.clientContext(version: version))
        let outcome = pair.handshake()
        #expect(outcome.client.isDone, "client: \(outcome.client)")
        #expect(outcome.server.isDone, "server: \(outcome.server)")
        #expect(pair.client.protocolVersion == (version == .tls1_3 ? "TLSv1.3" : "TLSv1.2"))
        #expect(pair.server.peerCertificate?.subject.contains("Apple Push Services: com.example.app") == true)
        #expect(pair.client.peerCertificate?.subject == "CN=localhost")

        let deadline = ContinuousClock.now + .seconds(10)
        let request = patternBytes(10_000, seed: 1)
        try pair.client.writeAll(request, deadline: deadline)
        #expect(readAll(pair.server, count: request.count, deadline: deadline).0 == request)
        let response = patternBytes(6, seed: 2)
        try pair.server.writeAll(response, deadline: deadline)
        #expect(readAll(pair.client, count: response.count, deadline: deadline).0 == response)
    }

    @Test(arguments: ["localhost", "127.0.0.1"])
    func verifiesByNameAndByIPAddress(host: String) throws {
        let fixture = try Fixture()
        // "localhost" may resolve to ::1 first, which refuses: connect must try the next address.
        let pair = try LoopbackPair(server: fixture.serverContext(), client: fixture.clientContext(), host: host)
        let outcome = pair.handshake()
        #expect(outcome.client.isDone, "client: \(outcome.client)")
        #expect(outcome.server.isDone, "server: \(outcome.server)")
    }

    @Test func refusesAServerCertifiedForAnotherName() throws {
        let fixture = try Fixture()
        let pair = try LoopbackPair(
            server: fixture.serverContext(), client: fixture.clientContext(), serverName: "gateway.example.com")
        let error = try #require(pair.handshake().client.error)
        #expect(error.kind == .verify)
        #expect(error.verifyResult?.code == TLSError.VerifyResult.hostnameMismatchCode)
    }

    @Test func refusesAServerCertifiedForAnotherIPAddress() throws {
        let authority = try CertificateAuthority()
        let server = try authority.issueServerCertificate(ipAddresses: ["10.0.0.1"])
        let serverContext = try TLSServerContext(credentials: server.credentials(), requiresClientCertificate: false)
        let clientContext = try TLSClientContext(trustedCertificates: [authority.certificate])
        let pair = try LoopbackPair(server: serverContext, client: clientContext)
        let error = try #require(pair.handshake().client.error)
        #expect(error.kind == .verify)
        #expect(error.verifyResult?.code == TLSError.VerifyResult.ipAddressMismatchCode)
    }

    @Test func refusesAServerFromAnUntrustedAuthority() throws {
        let fixture = try Fixture()
        let stranger = try Fixture()
        let pair = try LoopbackPair(
            server: stranger.serverContext(requiresClientCertificate: false), client: fixture.clientContext())
        let outcome = pair.handshake()
        let error = try #require(outcome.client.error)
        #expect(error.kind == .verify)
        #expect(error.verifyResult?.code == TLSError.VerifyResult.untrustedIssuerCode)
        #expect(error.description.contains("code 20"))
        #expect(outcome.server.error != nil)  // the client's alert ends the server's handshake
    }

    @Test func refusesAnUntrustedServerThatAlsoSendsItsRoot() throws {
        // A server that verifies clients has its CA in its store, and OpenSSL's automatic
        // chain building then sends that self-signed root too: the client sees code 19.
        let fixture = try Fixture()
        let pair = try LoopbackPair(server: try Fixture().serverContext(), client: fixture.clientContext())
        let error = try #require(pair.handshake().client.error)
        #expect(error.kind == .verify)
        #expect(error.verifyResult?.code == TLSError.VerifyResult.selfSignedInChainCode)
    }

    @Test func refusesAnExpiredServerCertificate() throws {
        let fixture = try Fixture(serverValidity: .expired)
        let pair = try LoopbackPair(server: fixture.serverContext(), client: fixture.clientContext())
        let error = try #require(pair.handshake().client.error)
        #expect(error.kind == .verify)
        #expect(error.verifyResult?.code == TLSError.VerifyResult.certificateExpiredCode)
    }

    @Test func acceptsAnyServerWhenVerificationIsExplicitlyOff() throws {
        let stranger = try Fixture()
        let client = try TLSClientContext(verifiesPeer: false, credentials: stranger.client.credentials())
        let pair = try LoopbackPair(
            server: try Fixture().serverContext(requiresClientCertificate: false), client: client,
            serverName: "anything.example")
        #expect(pair.handshake().client.isDone)
    }

    @Test func serverRefusesAMissingClientCertificateInTLS12Handshake() throws {
        let fixture = try Fixture()
        let pair = try LoopbackPair(
            server: fixture.serverContext(), client: fixture.clientContext(presentsCertificate: false, version: .tls1_2))
        let outcome = pair.handshake()
        #expect(outcome.server.error?.kind == .handshake)
        #expect(outcome.client.error?.kind == .handshake)
    }

    @Test func serverRefusesAMissingClientCertificateInTLS13OnFirstRead() throws {
        let fixture = try Fixture()
        let pair = try LoopbackPair(
            server: fixture.serverContext(), client: fixture.clientContext(presentsCertificate: false, version: .tls1_3))
        let outcome = pair.handshake()
        // TLS 1.3: the client's handshake ends before the server has judged its certificate.
        #expect(outcome.client.isDone)
        #expect(outcome.server.error?.kind == .handshake)
        let (_, step) = readAll(pair.client, count: 1, deadline: .now + .seconds(5))
        guard case .failed(let error)? = step else {
            Issue.record("expected a failed read, got \(String(describing: step))")
            return
        }
        #expect(error.kind == .alertReceived)
        #expect(error.alert == 116, "certificate required")
        #expect(error.refusesCertificate)
        #expect(error.openSSLErrors.joined().contains("certificate required"))
    }

    @Test func handshakeTimesOutAgainstAListenerThatNeverAnswers() throws {
        let fixture = try Fixture()
        let listener = try TLSListener(context: fixture.serverContext())
        let client = try TLSConnection.connect(host: "127.0.0.1", port: listener.port, context: fixture.clientContext())
        let error = #expect(throws: TLSError.self) { try client.handshake(deadline: .now + .milliseconds(200)) }
        #expect(error?.kind == .timeout)
    }

    @Test func connectRefusedCarriesErrno() throws {
        let fixture = try Fixture()
        let port: UInt16
        do {
            let listener = try TLSListener(context: fixture.serverContext())
            port = listener.port
        }  // closed: nothing listens there now
        let error = #expect(throws: TLSError.self) {
            try TLSConnection.connect(host: "127.0.0.1", port: port, context: fixture.clientContext())
        }
        #expect(error?.kind == .connect)
        #expect(error?.errno != nil)
    }
}
