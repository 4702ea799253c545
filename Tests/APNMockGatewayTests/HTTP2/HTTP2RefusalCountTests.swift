import APNHTTP2
import APNTLS
import APNMockGateway
import APNTestSupport
import APNTestTraits
import Testing

/// The HTTP/2 gateway counts each kind of connection it refuses or drops on its own in its
/// own field (issue #25): over the cap, idle, failed handshakes and clients without `h2`
/// were once summed, or not told apart, so a summary could not say what an attack was.
/// One gateway a kind, so no count depends on when another connection's thread ended.
@Suite(.threadPerTest) struct HTTP2RefusalCountTests {
    /// The summary's refusal fields, for one expectation each.
    private func counts(_ summary: HTTP2MockGateway.Summary) -> [String: Int] {
        [
            "overLimit": summary.connectionsOverLimit, "idle": summary.idleTimeouts,
            "handshake": summary.handshakeFailures, "alpn": summary.alpnRefusals,
            "refused": summary.refusedConnections, "threads": summary.threadStartFailures,
        ]
    }

    @Test func connectionsOverTheCapAreCountedAsSuchAndNothingElse() throws {
        let harness = try HTTP2Harness { $0.maxConnections = 1 }
        let held = try harness.certificateClient()
        for _ in 0..<3 {
            #expect(throws: (any Error).self) { _ = try harness.certificateClient() }
        }
        #expect(try held.exchange(headers: apnsRequest(), body: h2Payload(1))?.status == 200)
        let summary = harness.gateway.summary
        #expect(counts(summary) == ["overLimit": 3, "idle": 0, "handshake": 0, "alpn": 0, "refused": 0, "threads": 0])
        #expect(summary.refusals == [.overCap: 3, .idleTimeout: 0, .handshakeFailure: 0, .threadStartFailure: 0, .alpnRefused: 0])
        #expect(summary.connections == 1)
    }

    @Test func idleConnectionsAreCountedAsSuchAndNothingElse() throws {
        let harness = try HTTP2Harness { $0.idleTimeout = .milliseconds(200) }
        let silent = try (0..<3).map { _ in
            let connection = try TLSConnection.connect(host: "127.0.0.1", port: harness.gateway.port, context: harness.context())
            try connection.handshake(deadline: .now + .seconds(5))
            return TestClient(connection)
        }
        for client in silent { #expect(try client.readToEnd(timeout: .seconds(30)).end != .timedOut, "dropped") }
        #expect(harness.gateway.waitForSummary(timeout: .seconds(10)) { $0.idleTimeouts == 3 })
        let summary = harness.gateway.summary
        #expect(counts(summary) == ["overLimit": 0, "idle": 3, "handshake": 0, "alpn": 0, "refused": 0, "threads": 0])
        #expect(summary.refusals[.idleTimeout] == 3)
    }

    @Test func failedHandshakesAndClientsWithoutH2AreCountedApart() throws {
        let harness = try HTTP2Harness()
        // A certificate from another CA fails the handshake; ALPN offering only http/1.1 is
        // refused in it (the no_application_protocol alert) and counted as an ALPN refusal;
        // a client offering no ALPN at all is served (issue #26: Apple does not require it).
        let stranger = try harness.context(authority: try CertificateAuthority(commonName: "Stranger CA"))
        for context in [stranger, try harness.context(protocols: ["http/1.1"])] {
            let connection = try TLSConnection.connect(host: "127.0.0.1", port: harness.gateway.port, context: context)
            // TLS 1.3: the client may finish its side first and learn of the refusal on its first read.
            if (try? connection.handshake(deadline: .now + .seconds(5))) != nil {
                #expect(try TestClient(connection).readToEnd().end != .timedOut, "closed at once")
            }
        }
        let served = try HTTP2TestClient.connect(port: harness.gateway.port, context: try harness.context(protocols: []))
        #expect(try served.exchange(headers: apnsRequest(), body: h2Payload(1))?.status == 200)
        #expect(harness.gateway.waitForSummary(timeout: .seconds(10)) { $0.refusedConnections == 2 })
        let summary = harness.gateway.summary
        #expect(counts(summary) == ["overLimit": 0, "idle": 0, "handshake": 1, "alpn": 1, "refused": 2, "threads": 0])
        #expect(summary.refusals[.handshakeFailure] == 1)
        #expect(summary.refusals[.alpnRefused] == 1)
        #expect(summary.connections == 1)
    }
}
