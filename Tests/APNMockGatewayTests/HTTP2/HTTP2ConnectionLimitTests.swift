import APNHTTP2
import APNTLS
import APNMockGateway
import APNTestSupport
import APNTestTraits
import Testing

/// The HTTP/2 gateway's share of the connection limits and record retention (issue #16):
/// silent connections dropped, connections beyond the limit closed, records bounded.
@Suite(.threadPerTest) struct HTTP2ConnectionLimitTests {
    @Test func aSilentConnectionIsDroppedAfterTheIdleTimeoutAndCounted() throws {
        let harness = try HTTP2Harness { $0.idleTimeout = .milliseconds(200) }
        let connection = try TLSConnection.connect(host: "127.0.0.1", port: harness.gateway.port, context: harness.context())
        try connection.handshake(deadline: .now + .seconds(5))
        #expect(try TestClient(connection).readToEnd().end != .timedOut)
        #expect(harness.gateway.waitForSummary(timeout: .seconds(5)) { $0.idleTimeouts == 1 })
    }

    @Test func aConnectionBeyondTheLimitIsClosedAndCounted() throws {
        let harness = try HTTP2Harness { $0.maxConnections = 1 }
        let client = try harness.certificateClient()
        #expect(throws: (any Error).self) { _ = try harness.certificateClient() }
        #expect(harness.gateway.summary.connectionsOverLimit == 1)
        #expect(try client.exchange(headers: apnsRequest(), body: h2Payload(1))?.status == 200, "the one within is served")
    }

    @Test func discardOldestKeepsTheLatestRecords() throws {
        let harness = try HTTP2Harness { $0.recordRetention = RecordRetention(limit: 2, whenFull: .discardOldest) }
        let client = try harness.certificateClient()
        for n in 1...5 { #expect(try client.exchange(headers: apnsRequest(), body: h2Payload(n))?.status == 200) }
        #expect(harness.gateway.recordCount == 5)
        #expect(harness.gateway.records.map(\.sequence) == [4, 5])
        #expect(harness.gateway.summary.discardedRecords == 3)
    }
}
