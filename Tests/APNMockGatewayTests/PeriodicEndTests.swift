import APNTLS
import APNWire
import APNMockGateway
import APNTestSupport
import APNTestTraits
import Testing

/// ``MockGateway/Faults/closeEvery`` and ``MockGateway/Faults/resetEvery``: a gateway that
/// drops a connection after every N accepted notifications, for soak runs; and
/// ``MockGateway/openConnectionCount``.
@Suite(.threadPerTest) struct PeriodicEndTests {
    @Test(arguments: [TestClient.End.closed(clean: false), .failed(.connectionReset)])
    func endsAfterEveryNthAcceptedNotification(expectedEnd: TestClient.End) throws {
        var faults = MockGateway.Faults()
        if expectedEnd == .failed(.connectionReset) { faults.resetEvery = 3 } else { faults.closeEvery = 3 }
        let harness = try Harness(faults: faults)
        for round in 0..<3 {
            let client = try harness.connect()
            let first = UInt32(round * 3 + 1)
            try client.send(bulkFrames(first..<first + 5))
            let transcript = try client.readToEnd()
            #expect(transcript.bytes.isEmpty, "no error response")
            #expect(transcript.end == expectedEnd)
            #expect(harness.gateway.records.count == 3 * (round + 1), "ends at the 3rd, 6th, 9th accepted: the rest dropped")
        }
        #expect(harness.gateway.faults.closeEvery == faults.closeEvery, "not one-shot: still set")
        #expect(harness.gateway.faults.resetEvery == faults.resetEvery)
    }

    @Test func openConnectionsAreCountedUntilTheyEnd() throws {
        let harness = try Harness(faults: MockGateway.Faults())
        let first = try harness.connect()
        let second = try harness.connect()
        try first.send(bulkFrames(1..<2))
        try second.send(bulkFrames(2..<3))
        #expect(harness.gateway.waitForRecords(count: 2, timeout: .seconds(10)))
        #expect(harness.gateway.openConnectionCount == 2)
        first.connection.close()
        #expect(harness.gateway.waitForOpenConnections(atMost: 1, timeout: .seconds(10)))
        second.connection.close()
        #expect(harness.gateway.waitForOpenConnections(atMost: 0, timeout: .seconds(10)))
        #expect(harness.gateway.connectionCount == 2)
    }
}
