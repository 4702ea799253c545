import APNWire
import APNMockGateway
import APNTestSupport
import APNTestTraits
import Testing

/// The feedback listener serves what was queued, closes, and forgets it.
@Suite(.threadPerTest) struct FeedbackTests {
    @Test(arguments: [nil, 7] as [Int?])
    func servesQueuedTuplesThenNothing(writeSize: Int?) throws {
        var faults = MockGateway.Faults()
        faults.feedbackWriteSize = writeSize
        let harness = try Harness(faults: faults)
        try harness.gateway.queueFeedback(time: 0x5F5E_1000, token: token(1))
        try harness.gateway.queueFeedback(time: 0x5F5E_1001, token: token(2))

        let first = try harness.connect(feedback: true).readToEnd()
        #expect(first.bytes == hex("5f5e1000 0020") + token(1) + hex("5f5e1001 0020") + token(2))
        #expect(first.end == .closed(clean: true))
        if let writeSize {
            #expect(first.reads.allSatisfy { $0 <= writeSize })
            #expect(first.reads.count == (first.bytes.count + writeSize - 1) / writeSize)
        }

        let second = try harness.connect(feedback: true).readToEnd()
        #expect(second.bytes.isEmpty)
        #expect(second.end == .closed(clean: true))
        #expect(harness.gateway.feedbackConnectionCount == 2)
        #expect(harness.gateway.connectionCount == 0)
    }

    @Test func pausesBetweenWritesWhenAskedTo() throws {
        var faults = MockGateway.Faults()
        faults.feedbackWriteSize = 38
        faults.feedbackWritePause = .milliseconds(20)
        let harness = try Harness(faults: faults)
        for n in 1...6 { try harness.gateway.queueFeedback(time: UInt32(n), token: token(UInt8(n))) }
        let started = ContinuousClock.now
        let served = try harness.connect(feedback: true).readToEnd()
        #expect(served.bytes.count == 6 * 38)
        #expect(served.end == .closed(clean: true))
        #expect(ContinuousClock.now - started >= .milliseconds(100), "five pauses of 20 ms between six writes")
    }
}
