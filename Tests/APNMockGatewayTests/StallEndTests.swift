import APNTLS
import APNGatewayServer
import APNMockGateway
import APNTestSupport
import APNTestTraits
import Testing

/// How a read stall ends (`Faults.StallEnd`, issue #25): a client writes 50,000
/// notifications, the gateway stops reading after the 1,000th, and then resumes, closes,
/// resets or never reads again. Counts are asserted, never times.
@Suite(.threadPerTest) struct StallEndTests {
    static let stallAfter = 1_000
    static let written: UInt32 = 50_000

    /// 50,000 notifications of 245 bytes (about 12 MB: more than the kernel's buffers).
    static let frames = bulkFrames(1..<written + 1)

    /// The records of the notifications accepted before the stall struck.
    static var preStall: [MockGateway.Record] {
        (1...stallAfter).map { bulkRecord(UInt32($0), sequence: $0) }
    }

    @Test func resumeReadsOnAndRecordsEverything() throws {
        var faults = MockGateway.Faults()
        faults.stallReads(afterAccepting: Self.stallAfter, for: .milliseconds(100))
        #expect(faults.stallEnd == .resume, "resume is the default")
        let harness = try Harness(faults: faults)
        let client = try harness.connect()
        defer { client.connection.close() }
        try client.send(Self.frames, timeout: .seconds(60))

        #expect(harness.gateway.waitForRecords(count: Int(Self.written), timeout: .seconds(60)))
        let records = harness.gateway.records
        #expect(records.count == Int(Self.written))
        #expect(records.map(\.identifier) == (1...Self.written).map { $0 })
        #expect(harness.gateway.rejections.isEmpty)
    }

    @Test func closeEndsWithoutAWordAndRecordsOnlyWhatCameBefore() throws {
        var faults = MockGateway.Faults()
        faults.stallReads(afterAccepting: Self.stallAfter, for: .milliseconds(100), then: .close)
        // A linger long enough for the client to finish writing on a loaded machine: the
        // gateway drains and throws away what it sends, so the close stays a FIN.
        let harness = try Harness(faults: faults) { $0.lingerTimeout = .seconds(60) }
        let client = try harness.connect()
        try client.send(Self.frames, timeout: .seconds(60))

        let transcript = try client.readToEnd(timeout: .seconds(60))
        #expect(transcript.bytes.isEmpty, "no error response")
        #expect(transcript.end == .closed(clean: false))
        client.connection.close()
        #expect(harness.gateway.waitForOpenConnections(atMost: 0, timeout: .seconds(30)))
        #expect(harness.gateway.recordCount == Self.stallAfter, "what the client wrote during the stall is thrown away")
        #expect(harness.gateway.records == Self.preStall)
        #expect(harness.gateway.rejections.isEmpty)
        #expect(harness.gateway.connectionCount == 1)
    }

    @Test func resetEndsWithATCPResetAndRecordsOnlyWhatCameBefore() throws {
        var faults = MockGateway.Faults()
        faults.stallReads(afterAccepting: Self.stallAfter, for: .milliseconds(100), then: .reset)
        let harness = try Harness(faults: faults)
        let client = try harness.connect()
        defer { client.connection.close() }
        // The reset may come while the client is still writing (its write fails) or after.
        var end: TestClient.End?
        do {
            try client.send(Self.frames, timeout: .seconds(60))
        } catch let error as TLSError {
            end = .failed(error.kind)
        }
        if end == nil {
            let transcript = try client.readToEnd(timeout: .seconds(60))
            #expect(transcript.bytes.isEmpty, "no error response")
            end = transcript.end
        }
        #expect(end == .failed(.connectionReset))
        #expect(harness.gateway.waitForOpenConnections(atMost: 0, timeout: .seconds(30)))
        #expect(harness.gateway.records == Self.preStall)
        #expect(harness.gateway.rejections.isEmpty)
    }

    @Test func neverReadsAgainUntilTheStopWhichEndsItAtOnce() throws {
        var faults = MockGateway.Faults()
        // A duration that would be over long before the checks below: `never` ignores it.
        faults.stallReads(afterAccepting: Self.stallAfter, for: .milliseconds(1), then: .never)
        let harness = try Harness(faults: faults)
        let client = try harness.connect()
        defer { client.connection.close() }

        // Write ~1 MB batches until a write would block: the gateway reads nothing more.
        var next = 0
        var blocked = false
        while !blocked, next < Self.frames.count {
            let batch = Array(Self.frames[next..<min(next + (1 << 20), Self.frames.count)])
            let written = try client.writeWithoutBlocking(batch)
            next += written
            blocked = written < batch.count
        }
        #expect(blocked, "the client's writes block")
        #expect(harness.gateway.waitForRecords(count: Self.stallAfter, timeout: .seconds(30)))
        // Bounded, and passes at once if the stall ended: a stall that resumed records more.
        #expect(!harness.gateway.waitForRecords(count: Self.stallAfter + 1, timeout: .milliseconds(500)))
        #expect(harness.gateway.openConnectionCount == 1, "still stalled, not closed")

        #expect(harness.gateway.stop(timeout: .seconds(5)), "the stop ends the stalled connection's thread")
        #expect(try client.readToEnd(timeout: .seconds(30)).end != .timedOut, "the client sees the end")
        #expect(harness.gateway.records == Self.preStall)
    }
}
