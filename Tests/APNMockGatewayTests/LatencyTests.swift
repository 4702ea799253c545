import APNTLS
import APNWire
import APNMockGateway
import APNTestSupport
import APNTestTraits
import Testing

/// ``MockGateway/Faults/latency``: a gateway across a network, seen from a real TLS client.
@Suite(.threadPerTest) struct LatencyTests {
    @Test func recordsInOrderOnlyOnceTheLatencyHasPassed() throws {
        var faults = MockGateway.Faults()
        faults.latency = .milliseconds(200)
        let harness = try Harness(faults: faults)
        let client = try harness.connect()
        let sent = ContinuousClock.now
        try client.send(bulkFrames(1..<51))

        #expect(harness.gateway.waitForRecords(count: 50, timeout: .seconds(10)))
        #expect(ContinuousClock.now - sent >= .milliseconds(200))
        #expect(harness.gateway.records == (1...50).map { bulkRecord($0, sequence: Int($0)) })
    }

    @Test func readsAndThrowsAwayEverythingAfterARefusedOneWhileTheAnswerTravels() throws {
        var faults = MockGateway.Faults()
        faults.latency = .milliseconds(200)
        faults.rejectIdentifier(5)
        let harness = try Harness(faults: faults)
        let client = try harness.connect()
        let sent = ContinuousClock.now
        // About 490 KB in one go: the client has written all of it long before the answer.
        try client.send(bulkFrames(1..<2001))

        let transcript = try client.readToEnd()
        #expect(ContinuousClock.now - sent >= .milliseconds(400), "latency to the decision, latency back")
        #expect(transcript.bytes == hex("08 08 00000005"))
        #expect(transcript.end == .closed(clean: true))
        #expect(harness.gateway.records == (1...4).map { bulkRecord($0, sequence: Int($0)) })
        let rejection = try #require(harness.gateway.rejections.first)
        #expect(harness.gateway.rejections.count == 1)
        #expect(rejection.identifier == 5)
        // What followed was read and decoded, never recorded: at least the rest of the first
        // 16 KB TLS record (frames 6…66), which the gateway held when it decided.
        #expect(rejection.discardedAfter >= 61)
        #expect(rejection.discardedAfter <= 1995)
    }

    /// The "after N" ends under latency: the N-th is processed latency after it arrived,
    /// by which time the client has written much more.
    @Test(arguments: [TestClient.End.closed(clean: false), .failed(.connectionReset)])
    func endsAfterNOnlyWhenTheNthIsProcessed(expectedEnd: TestClient.End) throws {
        var faults = MockGateway.Faults()
        faults.latency = .milliseconds(500)
        if expectedEnd == .failed(.connectionReset) { faults.resetAfter = 3 } else { faults.closeAfter = 3 }
        let harness = try Harness(faults: faults)
        let client = try harness.connect()
        let sent = ContinuousClock.now
        try client.send(bulkFrames(1..<4))

        // Go on writing one notification a write until the gateway's end shows.
        var written = 3
        var end: TestClient.End?
        while end == nil, written < 200_000 {
            do {
                try client.send(bulkFrames(UInt32(written + 1)..<UInt32(written + 2)))
                written += 1
                end = try client.endIfAny()
            } catch let error as TLSError {
                end = .failed(error.kind)  // a reset can show on a write first
            }
        }
        #expect(ContinuousClock.now - sent >= .milliseconds(500))
        #expect(end == expectedEnd)
        // Thousands in the 500 ms the notifications took to be processed; 100 is ample.
        #expect(written >= 100, "the client had written \(written) when the gateway ended the connection")
        #expect(harness.gateway.records == (1...3).map { bulkRecord($0, sequence: Int($0)) })
        #expect(harness.gateway.rejections.isEmpty)
    }

    @Test func holdsAtMostItsLimitThenStopsReadingSoTheClientBlocks() throws {
        var faults = MockGateway.Faults()
        faults.latency = .seconds(60)
        let harness = try Harness(faults: faults)
        let client = try harness.connect()
        let batch = bulkFrames(1..<4097)  // about 1 MB, written again and again

        // Write until the socket stays full for a whole second: the gateway stopped reading.
        var total = 0
        var blocked = false
        while !blocked, total < 256 << 20 {
            let written = try client.writeWithoutBlocking(batch, patience: .seconds(1))
            total += written
            blocked = written < batch.count
        }
        #expect(blocked, "the gateway went on reading \(total) bytes")
        // It went on reading during the latency up to its limit (the kernel's buffers add more).
        #expect(total >= MockGateway.Faults.latencyBufferLimit)
        #expect(harness.gateway.recordCount == 0)
        #expect(harness.gateway.stop(timeout: .seconds(5)))
    }
}
