import APNTLS
import APNWire
import APNMockGateway
import APNTestSupport
import APNTestTraits
import Testing

/// The faults that shape the error response of a remote gateway — the lag, the delay
/// spent reading, a trickling answer, a wrong identifier — seen from a real TLS client.
@Suite(.threadPerTest) struct ErrorResponseFaultTests {
    /// Sends `frames` on one connection to a gateway with `faults` and reads until it
    /// closes; `elapsed` runs from the send to the close.
    static func exchange(
        _ frames: [UInt8], faults: MockGateway.Faults
    ) throws -> (harness: Harness, transcript: TestClient.Transcript, elapsed: Duration) {
        let harness = try Harness(faults: faults)
        let client = try harness.connect()
        let sent = ContinuousClock.now
        try client.send(frames)
        let transcript = try client.readToEnd()
        return (harness, transcript, ContinuousClock.now - sent)
    }

    @Test func lagReadsNMoreNotificationsBeforeAnswering() throws {
        var faults = MockGateway.Faults()
        faults.rejectIdentifier(2)
        faults.errorResponseLag = 5
        let (harness, transcript, _) = try Self.exchange(enhancedFrames(1...30), faults: faults)
        #expect(transcript.bytes == hex("08 08 00000002"))
        #expect(transcript.end == .closed(clean: true))
        #expect(harness.gateway.records == [enhancedRecord(1, connection: 1, sequence: 1)])
        // Exactly 5 read and thrown away, then the answer: the rest went unread.
        #expect(harness.gateway.rejections == [.init(status: .invalidToken, identifier: 2, connection: 1, discardedAfter: 5)])
    }

    @Test func lagEndsWhenTheClientStopsWriting() throws {
        var faults = MockGateway.Faults()
        faults.rejectIdentifier(2)
        faults.errorResponseLag = 50
        let (harness, transcript, elapsed) = try Self.exchange(enhancedFrames(1...3), faults: faults)
        #expect(transcript.bytes == hex("08 08 00000002"))
        #expect(transcript.end == .closed(clean: true))
        #expect(elapsed >= MockGateway.Faults.errorResponseLagIdleTimeout)
        #expect(harness.gateway.records == [enhancedRecord(1, connection: 1, sequence: 1)])
        #expect(harness.gateway.rejections == [.init(status: .invalidToken, identifier: 2, connection: 1, discardedAfter: 1)])
    }

    @Test func lagAppliesToStatus10Too() throws {
        var faults = MockGateway.Faults()
        faults.shutdownAfter = 2
        faults.errorResponseLag = 3
        let (harness, transcript, _) = try Self.exchange(enhancedFrames(1...10), faults: faults)
        #expect(transcript.bytes == hex("08 0a 00000002"))
        #expect(harness.gateway.records.count == 2)
        #expect(harness.gateway.rejections == [.init(status: .shutdown, identifier: 2, connection: 1, discardedAfter: 3)])
    }

    @Test func delayKeepsReadingAndThrowingAwayWhatArrives() throws {
        var faults = MockGateway.Faults()
        faults.rejectIdentifier(1)
        faults.errorResponseDelay = .milliseconds(600)
        let harness = try Harness(faults: faults)
        let client = try harness.connect()
        try client.send(enhancedFrames(1...1))
        #expect(harness.gateway.waitForRejections(count: 1, timeout: .seconds(10)))

        // Written after the decision, while the answer waits: read, decoded, not recorded.
        try client.send(bulkFrames(2..<102))
        let transcript = try client.readToEnd()
        #expect(transcript.bytes == hex("08 08 00000001"))
        #expect(transcript.end == .closed(clean: true))
        #expect(harness.gateway.records.isEmpty)
        #expect(harness.gateway.rejections == [.init(status: .invalidToken, identifier: 1, connection: 1, discardedAfter: 100)])
    }

    @Test func tricklesTheErrorResponseOneByteARecord() throws {
        var faults = MockGateway.Faults()
        faults.rejectIdentifier(2)
        faults.errorResponseByteInterval = .milliseconds(60)
        faults.splitsErrorResponse = true  // the trickle wins
        let (harness, transcript, elapsed) = try Self.exchange(enhancedFrames(1...3), faults: faults)
        #expect(transcript.bytes == hex("08 08 00000002"))
        #expect(transcript.reads == [1, 1, 1, 1, 1, 1])  // SSL_read returns one record at a time
        #expect(transcript.end == .closed(clean: true))
        #expect(elapsed >= .milliseconds(300))
        #expect(harness.gateway.records == [enhancedRecord(1, connection: 1, sequence: 1)])
    }

    @Test func sendsTheOverridingIdentifierAndRecordsTheRealOne() throws {
        var faults = MockGateway.Faults()
        faults.rejectIdentifier(3, status: .invalidPayloadSize)
        faults.errorIdentifierOverride = 0xDEAD_BEEF
        let (harness, transcript, _) = try Self.exchange(enhancedFrames(1...5), faults: faults)
        #expect(transcript.bytes == hex("08 07 deadbeef"))
        #expect(transcript.end == .closed(clean: true))
        #expect(harness.gateway.records == (1...2).map { enhancedRecord($0, connection: 1, sequence: Int($0)) })
        #expect(harness.gateway.rejections == [.init(status: .invalidPayloadSize, identifier: 3, connection: 1)])
    }

    @Test func zeroIdentifierInErrorsIsAnOverrideOfZero() {
        var faults = MockGateway.Faults()
        #expect(!faults.zeroIdentifierInErrors)
        faults.zeroIdentifierInErrors = true
        #expect(faults.errorIdentifierOverride == 0)
        faults.zeroIdentifierInErrors = false
        #expect(faults.errorIdentifierOverride == nil)

        faults.errorIdentifierOverride = 0xDEAD_BEEF
        #expect(!faults.zeroIdentifierInErrors)
        faults.zeroIdentifierInErrors = false  // leaves another override alone
        #expect(faults.errorIdentifierOverride == 0xDEAD_BEEF)
        #expect(faults != MockGateway.Faults())
    }
}
