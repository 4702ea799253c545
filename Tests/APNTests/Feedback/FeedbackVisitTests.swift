import APN
import APNTLS
import APNWire
import Foundation
import MockGateway
import Synchronization
import Testing

/// `Feedback.visit`: one visit on the caller's thread, batches handed over synchronously,
/// for a consumer that stores each batch before more is read.
@Suite("Feedback: visit, batches handed over before more is read", .timeLimit(.minutes(1)))
struct FeedbackVisitTests {
    typealias Tests = FeedbackTests

    @Test("every entry, in order, in batches of at most batchSize; the service closing is .finished")
    func everyEntryInBatches() throws {
        let fixture = try GatewayFixture()
        for n in 0..<2_500 { try fixture.mock.queueFeedback(time: UInt32(n), token: Tests.token(n)) }
        fixture.mock.updateFaults { $0.feedbackWriteSize = 38 * 7 }
        let feedback = Feedback(options: Tests.options(fixture))
        var batches: [[Feedback.Entry]] = []
        let end = try feedback.visit(batchSize: 100) { entries in
            batches.append(entries)
            return true
        }
        #expect(end == .finished)
        #expect(batches.allSatisfy { !$0.isEmpty && $0.count <= 100 })
        #expect(batches.flatMap { $0 }.map(\.unixTime) == (0..<2_500).map { UInt32($0) })
        #expect(batches.count >= 25)
    }

    @Test("a body returning false ends the visit after that batch: .stopped, nothing more handed over")
    func bodyStops() throws {
        let fixture = try GatewayFixture()
        for n in 0..<1_000 { try fixture.mock.queueFeedback(time: UInt32(n), token: Tests.token(n)) }
        let feedback = Feedback(options: Tests.options(fixture))
        var calls = 0
        let end = try feedback.visit(batchSize: 10) { entries in
            calls += 1
            #expect(entries.map(\.unixTime) == (0..<10).map { UInt32($0) })
            return false
        }
        #expect(end == .stopped)
        #expect(calls == 1)
    }

    @Test("isCancelled ends the visit: .stopped, with what was read handed over")
    func cancelled() throws {
        let fixture = try GatewayFixture()
        for n in 0..<100 { try fixture.mock.queueFeedback(time: UInt32(n), token: Tests.token(n)) }
        fixture.mock.updateFaults { $0.feedbackWriteSize = 38 }
        let feedback = Feedback(options: Tests.options(fixture))
        let seen = Lock(0)
        let end = try feedback.visit(batchSize: 1000, isCancelled: { seen.withLock { $0 } >= 5 }) { entries in
            seen.withLock { $0 += entries.count }
            return true
        }
        #expect(end == .stopped)
        #expect(seen.withLock { $0 } >= 5 && seen.withLock { $0 } < 100)
    }

    @Test("a failure mid-visit throws after handing over what was read before it")
    func failureAfterEntries() throws {
        let server = try RawTLSServer(sending: feedbackTuples((7, Tests.token(1)), (8, Tests.token(2, length: 101))))
        let feedback = Feedback(options: server.options { _ in })
        var handed: [UInt32] = []
        #expect(throws: APNError.self) {
            try feedback.visit { entries in
                handed += entries.map(\.unixTime)
                return true
            }
        }
        #expect(handed == [7])
    }
}
