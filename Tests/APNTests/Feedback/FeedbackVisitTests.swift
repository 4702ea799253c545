import APNSupport
import APN
import APNTLS
import APNWire
import Foundation
import APNMockGateway
import Synchronization
import Testing
import APNTestSupport
import APNTestTraits

/// `Feedback.visit`: one visit on the caller's thread, batches handed over synchronously,
/// for a consumer that stores each batch before more is read.
@Suite("Feedback: visit, batches handed over before more is read", .timeLimit(.minutes(10)), .threadPerTest)
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

    @Test("a cancellation raised by the body ends the visit after that read: .stopped, with what was read handed over")
    func cancelledFromTheBody() throws {
        let fixture = try GatewayFixture()
        for n in 0..<100 { try fixture.mock.queueFeedback(time: UInt32(n), token: Tests.token(n)) }
        fixture.mock.updateFaults { $0.feedbackWriteSize = 38 }
        let feedback = Feedback(options: Tests.options(fixture))
        let stop = try Feedback.Cancellation()
        var seen = 0
        let end = try feedback.visit(batchSize: 1000, cancellation: stop) { entries in
            seen += entries.count
            if seen >= 5 { stop.cancel() }
            return true
        }
        #expect(end == .stopped)
        #expect(seen >= 5 && seen < 100)
    }

    @Test("cancel() from another thread wakes a visit waiting on a silent service, with no read timeout")
    func cancelledWhileWaiting() async throws {
        let tuples: [UInt8] = (1...3).flatMap { (n: Int) -> [UInt8] in [0, 0, 0, UInt8(n), 0, 32] + device(n).token }
        let server = try HeldTLSServer(sending: tuples)  // then holds the connection open
        defer { server.stop() }
        let feedback = Feedback(options: server.options { $0.readTimeout = .zero })
        let stop = try Feedback.Cancellation()
        let allThree = DispatchSemaphore(value: 0)
        // The blocking visit on a thread of its own, not a pool thread it would hold.
        let visiting = Handoff<Result<Feedback.VisitEnd, APNError>>()
        Thread.detachNewThread {
            var received = 0
            visiting.put(Result { () throws(APNError) in
                try feedback.visit(cancellation: stop) { entries in
                    received += entries.count
                    if received == 3 { allThree.signal() }
                    return true
                }
            })
        }
        #expect(await onThread { allThree.wait(timeout: .now() + 20) == .success }, "the three entries were handed over")
        #expect(!stop.isCancelled)
        stop.cancel()
        // This test runs on a thread of its own (.threadPerTest): waiting here holds no pool thread.
        let end = try #require(visiting.take(waitingAtMost: .seconds(60)), "the visit ended after cancel()")
        #expect(try end.get() == .stopped)
        #expect(stop.isCancelled)
    }

    @Test("an already cancelled cancellation ends the visit before it connects")
    func alreadyCancelled() throws {
        let server = try HeldTLSServer(sending: [])
        defer { server.stop() }
        let feedback = Feedback(options: server.options { $0.readTimeout = .zero })
        let stop = try Feedback.Cancellation()
        stop.cancel()
        stop.cancel()  // idempotent
        var calls = 0
        let end = try feedback.visit(cancellation: stop) { _ in
            calls += 1
            return true
        }
        #expect(end == .stopped)
        #expect(calls == 0)
        #expect(server.connectionCount == 0)
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
