import APN
import Foundation
import APNMockGateway
import Testing
import APNTestSupport
import APNTestTraits

/// node-apn's `feedback` option beside the events and the `entries` sequence, and the
/// zeros that mean "off".
@Suite("Feedback: the feedback option", .timeLimit(.minutes(10)), .threadPerTest)
struct FeedbackCallbackTests {
    typealias Tests = FeedbackTests

    @Test("without batching, .each is called with (time, device) per entry, before the listeners")
    func eachPerEntry() async throws {
        let fixture = try GatewayFixture()
        for n in 1...3 { try fixture.mock.queueFeedback(time: UInt32(1_700_000_000 + n), token: Tests.token(n)) }
        let log = FeedbackLog()
        let feedback = Feedback(options: Tests.options(fixture) {
            $0.batchFeedback = false
            $0.feedback = log.eachCallback
        })
        feedback.on(log.listener)
        let stream = feedback.entries
        feedback.start()
        #expect(log.wait { $0.batches.count == 3 })
        #expect(log.calledEach.map(\.unixTime) == [1_700_000_001, 1_700_000_002, 1_700_000_003])
        #expect(log.calledEach.map(\.device.token) == (1...3).map { Tests.token($0) })
        #expect(log.trace == [
            "each 1700000001", "event 1700000001", "each 1700000002", "event 1700000002",
            "each 1700000003", "event 1700000003",
        ])
        feedback.cancel()
        var seen = 0
        for await _ in stream { seen += 1 }
        #expect(seen == 3, "the sequence still gets every entry")
    }

    @Test("with batching, .batch is called with each batch, the final one even when empty")
    func batchPerBatch() async throws {
        let fixture = try GatewayFixture()
        for n in 0..<5 { try fixture.mock.queueFeedback(time: UInt32(n), token: Tests.token(n)) }
        let log = FeedbackLog()
        let feedback = Feedback(options: Tests.options(fixture) {
            $0.batchSize = 2
            $0.feedback = log.batchCallback
        })
        feedback.on(log.listener)
        feedback.start()
        #expect(log.wait { $0.batches.count == 3 })
        #expect(log.called == [[0, 1], [2, 3], [4]])
        #expect(log.batches == log.called)
        #expect(log.trace == ["batch 0,1", "event 0,1", "batch 2,3", "event 2,3", "batch 4", "event 4"])
        feedback.start()
        #expect(log.wait { $0.called.count == 4 })
        #expect(log.called.last == [], "an empty visit's final batch")
        feedback.cancel()
    }

    @Test("the shapes cross: .each with batches is called per entry; .batch without, with one entry each",
          arguments: [true, false])
    func shapesCross(batched: Bool) async throws {
        let fixture = try GatewayFixture()
        for n in 0..<3 { try fixture.mock.queueFeedback(time: UInt32(n), token: Tests.token(n)) }
        let log = FeedbackLog()
        let feedback = Feedback(options: Tests.options(fixture) {
            $0.batchFeedback = batched
            $0.feedback = batched ? log.eachCallback : log.batchCallback
        })
        feedback.on(log.listener)
        feedback.start()
        #expect(log.wait { $0.batches.flatMap { $0 }.count == 3 })
        if batched {
            #expect(log.calledEach.map(\.unixTime) == [0, 1, 2])
            #expect(log.trace == ["each 0", "each 1", "each 2", "event 0,1,2"])
        } else {
            #expect(log.called == [[0], [1], [2]])
        }
        feedback.cancel()
    }

    @Test("zero connect and read timeouts are off, as node-apn's zeros")
    func zeroTimeoutsAreOff() async throws {
        let fixture = try GatewayFixture()
        try fixture.mock.queueFeedback(time: 5, token: Tests.token(5))
        let feedback = Feedback(options: Tests.options(fixture) {
            $0.connectTimeout = .zero
            $0.readTimeout = .zero
        })
        #expect(try await feedback.read().map(\.unixTime) == [5])
    }
}
