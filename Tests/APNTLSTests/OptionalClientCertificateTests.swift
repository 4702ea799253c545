import APNTestSupport
import APNTestTraits
import APNTLS
import Testing

/// A server that asks for a client certificate without requiring one (Apple's HTTP/2
/// provider API serves certificate and token clients on one listener), and the wait for
/// reading or writing at once.
@Suite(.threadPerTest) struct OptionalClientCertificateTests {
    static func requestingContext(_ fixture: Fixture) throws -> TLSServerContext {
        try TLSServerContext(
            credentials: fixture.server.credentials(), clientCertificateAuthorities: [fixture.authority.certificate],
            requiresClientCertificate: false, requestsClientCertificate: true)
    }

    @Test(arguments: [true, false])
    func servesClientsWithAndWithoutACertificate(presentsCertificate: Bool) throws {
        let fixture = try Fixture()
        let pair = try LoopbackPair(
            server: Self.requestingContext(fixture), client: fixture.clientContext(presentsCertificate: presentsCertificate))
        let outcome = pair.handshake()
        #expect(outcome.client.isDone && outcome.server.isDone, "\(outcome)")
        #expect((pair.server.peerCertificate != nil) == presentsCertificate)
    }

    @Test func refusesACertificateFromAnotherAuthority() throws {
        let fixture = try Fixture()
        let stranger = try Fixture()
        let pair = try LoopbackPair(server: Self.requestingContext(fixture), client: stranger.clientContext())
        let outcome = pair.handshake()
        #expect(!outcome.server.isDone, "server: \(outcome.server)")
    }

    @Test func needsAuthoritiesToAskWith() throws {
        let fixture = try Fixture()
        #expect(throws: TLSError.self) {
            try TLSServerContext(
                credentials: fixture.server.credentials(), requiresClientCertificate: false, requestsClientCertificate: true)
        }
    }

    @Test func waitsForReadingOrWritingAtOnce() throws {
        let fixture = try Fixture()
        let pair = try LoopbackPair(server: fixture.serverContext(), client: fixture.clientContext())
        #expect(pair.handshake().client.isDone)
        let soon = ContinuousClock.now + .milliseconds(50)
        #expect(try pair.client.waitUntil(readable: true, writable: true, deadline: soon), "writable at once")
        #expect(try !pair.server.waitUntil(readable: true, writable: false, deadline: soon), "nothing to read")
        try pair.client.writeAll([1, 2, 3], deadline: .now + .seconds(5))
        #expect(try pair.server.waitUntil(readable: true, writable: false, deadline: .now + .seconds(5)))
        let started = ContinuousClock.now
        #expect(try !pair.server.waitUntil(readable: false, writable: false, deadline: .now + .milliseconds(30)))
        #expect(ContinuousClock.now - started >= .milliseconds(30), "with neither it waits out the time")
    }
}
