import APNHTTP2
import APNMockGateway
import APNTestSupport
import APNTestTraits
import Testing

/// Many streams at once, several connections, and stopping with clients connected.
@Suite(.threadPerTest) struct HTTP2LoadTests {
    @Test func answersAThousandConcurrentStreamsOnOneConnection() throws {
        let harness = try HTTP2Harness()
        let client = try harness.certificateClient()
        let streams = try (0..<1000).map { try client.submit(headers: apnsRequest(token: deviceToken($0)), body: h2Payload($0)) }
        #expect(try client.waitForStreams(streams, timeout: .seconds(30)))
        #expect(client.serverMaxConcurrentStreams == 1000)
        #expect(streams.allSatisfy { client.responses[$0]?.status == 200 })
        let records = harness.gateway.records
        #expect(records.count == 1000)
        #expect(records.map(\.sequence) == Array(1...1000))
        #expect(Set(records.map(\.apnsID)).count == 1000)
    }

    @Test func recordsSeveralConnectionsInOneGlobalOrder() throws {
        let harness = try HTTP2Harness()
        let clients = try (0..<3).map { _ in try harness.certificateClient() }
        var streams: [[Int32]] = []
        for (index, client) in clients.enumerated() {
            streams.append(try (0..<200).map { number in
                try client.submit(headers: apnsRequest(token: deviceToken(index)), body: h2Payload(number))
            })
        }
        for (client, mine) in zip(clients, streams) {
            #expect(try client.waitForStreams(mine, timeout: .seconds(30)))
        }
        let records = harness.gateway.records
        #expect(records.map(\.sequence) == Array(1...600))
        for connection in 1...3 {
            let payloads = records.filter { $0.connection == connection }.map(\.payload)
            #expect(payloads == (0..<200).map(h2Payload), "each connection's in its own order")
        }
        #expect(harness.gateway.summary.connections == 3)
    }

    @Test func stopReturnsPromptlyWithClientsConnected() throws {
        var faults = HTTP2MockGateway.Faults()
        faults.responseDelay = .seconds(600)
        let harness = try HTTP2Harness(faults: faults)
        let idle = try harness.certificateClient()
        #expect(try idle.run(timeout: .milliseconds(100)) { false } == false)  // preface and SETTINGS sent
        let waiting = try harness.certificateClient()
        let stream = try waiting.submit(headers: apnsRequest(), body: h2Payload(1))
        #expect(try waiting.run { harness.gateway.recordCount == 1 })
        #expect(harness.gateway.openConnectionCount == 2)

        // Stopping cleanly within the bound, with answers held for 600 s, is the proof that
        // stop does not wait for them (no assertion on how long it took).
        let summary = harness.gateway.stop(timeout: .seconds(60))
        #expect(summary.stoppedCleanly)
        #expect(summary.accepted == 1)
        #expect(try idle.waitForEnd() != nil)
        #expect(try waiting.waitForEnd() != nil)
        #expect(waiting.responses[stream] == nil, "the held answer went with the connection")
        #expect(harness.gateway.stop().stoppedCleanly, "again: nothing left to wait for")
    }

    @Test func waitForRecordsTimesOutWhenNothingComes() throws {
        let harness = try HTTP2Harness()
        let started = ContinuousClock.now
        #expect(!harness.gateway.waitForRecords(count: 1, timeout: .milliseconds(100)))
        #expect(ContinuousClock.now - started >= .milliseconds(100))
        #expect(harness.gateway.port != 0)
    }
}
