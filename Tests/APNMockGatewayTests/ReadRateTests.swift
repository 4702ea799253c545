import APNTLS
import APNMockGateway
import APNTestSupport
import APNTestTraits
import Testing

/// ``MockGateway/Faults/readRate``: a slow gateway, seen from a real TLS client.
@Suite(.threadPerTest) struct ReadRateTests {
    @Test func blocksTheClientsWritesAndStillRecordsEverythingInOrder() throws {
        // Slow enough that a debug-built client on a loaded machine still outruns it (at
        // 20,000 a second, 4.9 MB/s, a loaded machine's client never got ahead).
        let rate = 5_000
        var faults = MockGateway.Faults()
        faults.readRate = rate
        let harness = try Harness(faults: faults)
        let started = ContinuousClock.now
        let client = try harness.connect()

        // Write ~1 MB batches until a write would block; finish that batch blocking.
        var next: UInt32 = 1
        var blockedAt: (written: Int, recorded: Int, after: Duration)?
        while blockedAt == nil, next < 400_000 {
            let batch = bulkFrames(next..<next + 4096)
            let written = try client.writeWithoutBlocking(batch)
            if written < batch.count {
                // Whole notifications written so far, and what the gateway had processed.
                let recorded = harness.gateway.recordCount
                blockedAt = (Int(next) - 1 + written / 245, recorded, ContinuousClock.now - started)
            }
            try client.send(Array(batch[written...]), timeout: .seconds(60))
            next += 4096
        }
        let blocked = try #require(blockedAt, "the client's writes never blocked")
        #expect(blocked.recorded < blocked.written, "the gateway was behind the client when it blocked")
        // The budget held: no more than the burst plus the rate since before connecting.
        let allowed = TokenBucket.defaultBurst(rate: rate) + Int(blocked.after / .seconds(1) * Double(rate)) + 1
        #expect(blocked.recorded <= allowed)

        // Nothing lost: every notification recorded, in order, on the one connection.
        let total = Int(next) - 1
        #expect(harness.gateway.waitForRecords(count: total, timeout: .seconds(60)))
        #expect(ContinuousClock.now - started >= .seconds(1) * Double(total - 200) / Double(rate))
        let records = harness.gateway.records
        #expect(records.count == total)
        #expect(records.map(\.identifier) == (1...UInt32(total)).map { $0 })
        #expect(records.last == bulkRecord(UInt32(total), sequence: total))
        #expect(harness.gateway.rejections.isEmpty)
        #expect(try client.endIfAny() == nil, "slow, not broken: nothing sent back, still open")
    }

    @Test func appliesARateSetWhileTheConnectionIsOpen() throws {
        let harness = try Harness()
        let client = try harness.connect()
        try client.send(bulkFrames(1..<11))
        #expect(harness.gateway.waitForRecords(count: 10, timeout: .seconds(10)))

        harness.gateway.updateFaults { $0.readRate = 50 }  // one at a time, 20 ms apart
        let sent = ContinuousClock.now
        try client.send(bulkFrames(11..<31))
        #expect(harness.gateway.waitForRecords(count: 30, timeout: .seconds(10)))
        // The first of the 20 on the full bucket's one token, the other 19 at 20 ms each.
        #expect(ContinuousClock.now - sent >= .milliseconds(380))
        #expect(harness.gateway.records == (1...30).map { bulkRecord($0, sequence: Int($0)) })
    }
}
