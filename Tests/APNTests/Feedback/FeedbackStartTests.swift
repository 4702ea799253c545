import APN
import APNWire
import Foundation
import APNMockGateway
import Synchronization
import Testing
import APNTestSupport
import APNTestTraits

/// When a poller visits the service, as node-apn's README says: at creation with an
/// interval, only at `start()` without one, `start()` again after `cancel()`, and never
/// two visits at once.
@Suite("Feedback: starting, as node-apn", .timeLimit(.minutes(10)), .threadPerTest)
struct FeedbackStartTests {
    typealias Tests = FeedbackTests

    /// Where the runs on a manual clock start: a gateway whose feedback service holds
    /// entry 1, the clock, and a log.
    static func start() throws -> (GatewayFixture, ManualClock, FeedbackLog) {
        let fixture = try GatewayFixture()
        try fixture.mock.queueFeedback(time: 1, token: Tests.token(1))
        return (fixture, ManualClock(), FeedbackLog())
    }

    @Test("with an interval, the first visit is at creation (no start()), then every interval")
    func pollsAtCreation() async throws {
        let (fixture, clock, log) = try Self.start()
        let feedback = Feedback(options: Tests.options(fixture) {
            $0.clock = .manual(clock)
            $0.interval = .seconds(60)
            $0.feedback = log.batchCallback  // in place before the first visit
        })
        #expect(log.wait { $0.called == [[1]] }, "visited at creation")
        #expect(fixture.mock.feedbackConnectionCount == 1)
        try fixture.mock.queueFeedback(time: 2, token: Tests.token(2))
        clock.advance(by: .seconds(60))
        #expect(log.wait { $0.called == [[1], [2]] })
        #expect(fixture.mock.feedbackConnectionCount == 2)
        feedback.cancel()
    }

    @Test("an interval of zero (or nil) waits for start(); each start() then polls once",
          arguments: [Duration.zero, nil])
    func zeroIntervalWaitsForStart(interval: Duration?) async throws {
        let (fixture, clock, log) = try Self.start()
        let feedback = Feedback(options: Tests.options(fixture) {
            $0.clock = .manual(clock)
            $0.interval = interval
            $0.feedback = log.batchCallback
        })
        clock.advance(by: .seconds(7200))
        // Nothing visited at creation: the read finds the entry, and is the only visit.
        #expect(try await feedback.read().map(\.unixTime) == [1])
        #expect(fixture.mock.feedbackConnectionCount == 1)
        #expect(log.called.isEmpty)
        try fixture.mock.queueFeedback(time: 2, token: Tests.token(2))
        feedback.start()
        #expect(log.wait { $0.called == [[2]] })
        feedback.start()
        #expect(log.wait { $0.called == [[2], []] })
        #expect(fixture.mock.feedbackConnectionCount == 3)
    }

    @Test("start() after cancel(): a visit at once, the interval again, events and a new sequence")
    func startAfterCancel() async throws {
        let (fixture, clock, log) = try Self.start()
        var first: AsyncStream<Feedback.Entry>?
        let (feedback, queue) = heldFeedback(Tests.options(fixture) {
            $0.clock = .manual(clock)
            $0.interval = .seconds(60)
        }) {
            $0.on(log.listener)
            first = $0.entries
        }
        #expect(log.wait { $0.batches == [[1]] })
        feedback.cancel()
        var seen: [UInt32] = []
        for await entry in first! { seen.append(entry.unixTime) }
        #expect(seen == [1], "the sequence ends at cancel(), after what was delivered")
        clock.advance(by: .seconds(120))

        try fixture.mock.queueFeedback(time: 2, token: Tests.token(2))
        queue.suspend()
        feedback.start()
        let second = feedback.entries
        queue.resume()
        #expect(log.wait { $0.batches == [[1], [2]] }, "the listener stayed; a visit at once")
        try fixture.mock.queueFeedback(time: 3, token: Tests.token(3))
        clock.advance(by: .seconds(60))
        #expect(log.wait { $0.batches == [[1], [2], [3]] }, "the interval runs again")
        feedback.cancel()
        seen = []
        for await entry in second { seen.append(entry.unixTime) }
        #expect(seen == [2, 3])
        #expect(fixture.mock.feedbackConnectionCount == 3)
    }

    @Test("start() during a visit: no second visit, entries delivered once, the interval counts from start()")
    func startDuringVisit() async throws {
        let server = try HeldTLSServer(sending: feedbackTuples((7, Tests.token(7))))
        defer { server.stop() }
        let clock = ManualClock()
        let log = FeedbackLog()
        let feedback = Feedback(options: server.options {
            $0.clock = .manual(clock)
            $0.interval = .seconds(60)
            $0.feedback = log.batchCallback
            // Both timeouts run on the clock too: the held visit must outlast t = 60 (and may
            // still be in its handshake at the first advance).
            $0.connectTimeout = .zero
            $0.readTimeout = .zero
        })
        #expect(server.waitForConnections(1), "the visit at creation, now held open")
        clock.advance(by: .seconds(30))
        feedback.start()
        feedback.start()
        clock.advance(by: .seconds(30))  // t = 60: the old rhythm's tick, not the new one's
        #expect(server.connectionCount == 1, "no visit alongside the one in progress")
        server.release()
        #expect(log.wait { $0.called == [[7]] }, "the visit in progress served the starts")
        clock.advance(by: .seconds(30))  // t = 90: 60 s after the first start()
        #expect(log.wait { $0.called == [[7], []] }, "the interval restarted at start()")
        #expect(server.connectionCount == 2)
        feedback.cancel()
    }

    @Test("cancel() then start() while the cancelled visit ends: a new visit follows it")
    func startWhileCancelledVisitEnds() async throws {
        let server = try HeldTLSServer(sending: feedbackTuples((7, Tests.token(7))))
        defer { server.stop() }
        let log = FeedbackLog()
        let feedback = Feedback(options: server.options {
            $0.interval = .seconds(3600)
            $0.batchFeedback = false  // the entry is delivered as soon as it is read
            $0.feedback = log.eachCallback
        })
        #expect(log.wait { $0.calledEach.count == 1 }, "the first visit read its entry and is held open")
        feedback.cancel()
        feedback.start()
        #expect(server.waitForConnections(2), "a new visit after the cancelled one")
        server.release()
        #expect(log.calledEach.map(\.unixTime) == [7])
        feedback.cancel()
    }
}
