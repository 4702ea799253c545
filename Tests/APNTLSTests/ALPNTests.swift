import APNTestSupport
import APNTestTraits
import APNTLS
import Testing

/// ALPN over loopback: the server's choice, the refusal when nothing is shared, and the
/// connections that negotiate nothing.
@Suite(.threadPerTest) struct ALPNTests {
    @Test(arguments: [TLSVersion.tls1_2, .tls1_3])
    func negotiatesH2(version: TLSVersion) throws {
        let fixture = try Fixture()
        let pair = try LoopbackPair(
            server: fixture.serverContext(applicationProtocols: ["h2"]),
            client: fixture.clientContext(version: version, applicationProtocols: ["h2", "http/1.1"]))
        #expect(pair.client.applicationProtocol == nil, "nothing is negotiated before the handshake")
        let outcome = pair.handshake()
        #expect(outcome.client.isDone, "client: \(outcome.client)")
        #expect(outcome.server.isDone, "server: \(outcome.server)")
        #expect(pair.client.applicationProtocol == "h2")
        #expect(pair.server.applicationProtocol == "h2")
    }

    @Test(arguments: [
        (server: ["h2", "http/1.1"], client: ["http/1.1", "h2"], chosen: "h2"),
        (server: ["http/1.1", "h2"], client: ["h2", "http/1.1"], chosen: "http/1.1"),
        (server: ["spdy/3", "h2"], client: ["http/1.1", "h2"], chosen: "h2"),
    ])
    func theServersPreferenceWins(server: [String], client: [String], chosen: String) throws {
        let fixture = try Fixture()
        let pair = try LoopbackPair(
            server: fixture.serverContext(applicationProtocols: server),
            client: fixture.clientContext(applicationProtocols: client))
        #expect(pair.handshake().client.isDone)
        #expect(pair.client.applicationProtocol == chosen)
        #expect(pair.server.applicationProtocol == chosen)
    }

    @Test(arguments: [TLSVersion.tls1_2, .tls1_3])
    func clientOfferingOnlyHTTP1IsRefusedByAnH2OnlyServer(version: TLSVersion) throws {
        let fixture = try Fixture()
        let pair = try LoopbackPair(
            server: fixture.serverContext(applicationProtocols: ["h2"]),
            client: fixture.clientContext(version: version, applicationProtocols: ["http/1.1"]))
        let outcome = pair.handshake()
        let serverError = try #require(outcome.server.error, "server: \(outcome.server)")
        #expect(serverError.kind == .applicationProtocolRefused)
        #expect(serverError.openSSLErrors.joined().contains("no application protocol"))
        let clientError = try #require(outcome.client.error, "client: \(outcome.client)")
        #expect(clientError.kind == .handshake)
        #expect(clientError.openSSLErrors.joined().contains("no application protocol"), "the alert (120) the client received")
    }

    @Test func clientWithoutALPNIsServedWithoutAProtocol() throws {
        let fixture = try Fixture()
        let pair = try LoopbackPair(
            server: fixture.serverContext(applicationProtocols: ["h2"]), client: fixture.clientContext())
        let outcome = pair.handshake()
        #expect(outcome.client.isDone, "client: \(outcome.client)")
        #expect(outcome.server.isDone, "server: \(outcome.server)")
        #expect(pair.client.applicationProtocol == nil)
        #expect(pair.server.applicationProtocol == nil)
    }

    @Test func serverWithoutALPNIgnoresTheOffer() throws {
        let fixture = try Fixture()
        let pair = try LoopbackPair(
            server: fixture.serverContext(), client: fixture.clientContext(applicationProtocols: ["h2"]))
        #expect(pair.handshake().client.isDone)
        #expect(pair.client.applicationProtocol == nil)
        #expect(pair.server.applicationProtocol == nil)
    }

    @Test func aNameOfTheLongestLengthNegotiates() throws {
        let name = String(repeating: "p", count: 253) + "é"  // 255 bytes
        let fixture = try Fixture()
        let pair = try LoopbackPair(
            server: fixture.serverContext(applicationProtocols: ["h2", name]),
            client: fixture.clientContext(applicationProtocols: [name]))
        #expect(pair.handshake().client.isDone)
        #expect(pair.client.applicationProtocol == name)
    }

    @Test(arguments: ["", String(repeating: "x", count: 256), String(repeating: "é", count: 128)])
    func namesTheWireFormatCannotCarryAreRefused(name: String) throws {
        let fixture = try Fixture()
        let clientError = #expect(throws: TLSError.self) {
            try fixture.clientContext(applicationProtocols: ["h2", name])
        }
        #expect(clientError?.kind == .configuration)
        let serverError = #expect(throws: TLSError.self) {
            try fixture.serverContext(applicationProtocols: [name])
        }
        #expect(serverError?.kind == .configuration)
    }
}
