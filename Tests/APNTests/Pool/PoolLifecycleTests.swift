import APN
import Testing
import APNTestSupport
import APNTestTraits

@Suite("Connection pool: flush, shutdown, termination and release", .threadPerTest)
struct PoolLifecycleTests {
    static func isStatus(_ code: ErrorCallbackCode, _ status: StatusCode) -> Bool {
        if case .status(let actual) = code { actual == status } else { false }
    }

    @Test func aRefusalReportsErrorCallbackThenTheEventThenTheOutcomeAndOpensNothing() {
        let h = PoolHarness()
        h.refuse(7, APNError(code: .payloadTooLarge, message: "too large", status: .invalidPayloadSize))
        #expect(h.callbacks.map(\.tag) == [7])
        #expect(h.callbacks.first.map { Self.isStatus($0.code, .invalidPayloadSize) } == true)
        #expect(h.events == ["transmissionError(7,7)"])
        #expect(h.failureCode(7) == .payloadTooLarge)
        #expect(h.connects.isEmpty)
        let flush = h.flush()
        #expect(h.replies[flush]?.notAccepted.map { SessionHarness.number($0.tag) } == [7])
        #expect(h.replies[flush]?.confirmed == true, "no socket: nothing to confirm")
    }

    @Test func aConfirmedFlushAnswersOnceEverySocketsMarkerIsAnswered() {
        let h = PoolHarness.twoSocketsWritten()
        let flush = h.flush()
        #expect(h.write(0) == [-1] && h.write(1) == [-1])
        h.respond(0, .missingDeviceToken, 2)
        #expect(h.replies[flush] == nil, "slot 1 has not answered")
        h.respond(1, .missingDeviceToken, 2)
        #expect(h.replies[flush]?.confirmed == true)
        #expect(h.replies[flush]?.accepted == 2)
    }

    @Test func aFlushIsUnconfirmedWhenOneSocketsMarkerIsLostWithItsConnection() {
        let h = PoolHarness.twoSocketsWritten()
        let flush = h.flush()
        h.write(0)
        h.write(1)
        h.respond(0, .missingDeviceToken, 2)
        h.closed(1)
        #expect(h.replies[flush]?.confirmed == false)
        #expect(h.replies[flush]?.accepted == 1, "2 is resent: no outcome yet")
    }

    @Test func anUnconfirmedFlushAnswersAtTheEndOfTheFirstTurnWithNothingOutstanding() {
        let h = PoolHarness()
        h.push(1...1)
        h.opened(0)
        h.write(0)
        h.acknowledge(0)
        let flush = h.flush(confirm: false)
        #expect(h.replies[flush] == nil)
        h.advance(2.5)
        #expect(h.replies[flush]?.accepted == 1)
        #expect(h.replies[flush]?.confirmed == false)
    }

    @Test func shutdownRefusesLaterPushesAndAnswersOnceEverySocketClosed() {
        let h = PoolHarness.twoSocketsWritten()
        let shutdown = h.shutdown()
        h.push(3...3)
        #expect(h.failureCode(3) == .shutDown)
        #expect(h.callbacks.map(\.tag) == [3])
        h.acknowledge(0)
        h.acknowledge(1)
        #expect(h.replies[shutdown] == nil, "the grace window first")
        h.advance(2.5)
        #expect(h.closes.sorted() == [0, 1])
        #expect(h.replies[shutdown]?.accepted == 2)
        #expect(h.replies[shutdown]?.notAccepted.count == 1)
        #expect(h.eventsEnded && !h.stopped, "still held: answers later calls")
        let late = h.flush()
        #expect(h.replies[late]?.notAccepted.isEmpty == true, "answered at once, with what came since")
        h.release()
        #expect(h.stopped)
    }

    @Test func aFlushStillWaitingAtTheEndOfShutdownGetsAnEmptyReport() {
        let h = PoolHarness()
        h.push(1...1)
        h.opened(0)
        h.write(0)
        let flush = h.flush()
        let shutdown = h.shutdown()
        h.write(0)
        h.closed(0)
        #expect(h.replyOrder == [flush], "the lost marker ends the flush unconfirmed")
        h.opened(0)
        h.write(0)
        h.acknowledge(0)
        h.advance(2.5)
        #expect(h.replyOrder == [flush, shutdown])
        #expect(h.outcome(1) == acceptedTwice(.graceWindow))
    }

    @Test func releaseBeforeShutdownShutsDownForNobodyThenStops() {
        let h = PoolHarness()
        h.push(1...1)
        h.opened(0)
        h.write(0)
        h.acknowledge(0)
        h.release()
        #expect(!h.stopped)
        h.push(2...2)
        #expect(h.failureCode(2) == .shutDown)
        h.advance(2.5)
        #expect(h.outcome(1) == accepted(.graceWindow))
        #expect(h.eventsEnded && h.stopped)
        #expect(h.replies.isEmpty)
    }

    @Test func theRetryLimitTerminatesTheConnectionAndLaterPushesFailWith515() {
        let h = PoolHarness { $0.session.connectionRetryLimit = 1 }
        h.push(1...2)
        h.failed(0)
        h.advance(1)
        h.failed(0)
        #expect(h.failureCode(1) == .connectionRetryLimitExceeded)
        #expect(h.failureCode(2) == .connectionRetryLimitExceeded)
        #expect(h.milestones.contains("error(connectionRetryLimitExceeded)"))
        h.push(3...3)
        #expect(h.failureCode(3) == .connectionTerminated)
        #expect(h.callbacks.last.map { Self.isStatus($0.code, .connectionTerminated) } == true)
        let shutdown = h.shutdown()
        #expect(h.replies[shutdown]?.notAccepted.count == 3)
        #expect(h.eventsEnded)
        #expect(h.connects == [0, 0])
    }

    @Test func oneSocketsCredentialsFailureTerminatesThePoolWhileTheOtherFinishes() {
        let h = PoolHarness { $0.maxConnections = 2 }
        h.push(1...2)
        h.opened(0)
        h.write(0)
        h.acknowledge(0)
        h.failed(1, APNError(code: .credentials, message: "bad key"))
        #expect(h.failureCode(2) == .initialisationFailed)
        h.push(3...3)
        #expect(h.failureCode(3) == .connectionTerminated)
        h.advance(2.5)
        #expect(h.outcome(1) == accepted(.graceWindow))
        #expect(h.closes == [0], "the other socket finished what it held and closed")
        #expect(h.connects == [0, 1], "no socket is kept open once terminated")
        #expect(h.duplicateOutcomes.isEmpty && h.outcomes.count == 3)
    }
}

@Suite("Connection pool: cancelled replies", .threadPerTest)
struct PoolCancelTests {
    @Test func aCancelledFlushIsNotAnsweredAndItsOutcomesStayForTheNextReport() {
        let h = PoolHarness()
        h.push(1...1)
        h.opened(0)
        h.write(0)
        h.acknowledge(0)
        let cancelled = h.flush(confirm: false)
        let confirmed = h.flush()
        h.pool.cancel(reply: cancelled)
        h.pool.cancel(reply: confirmed)
        h.advance(2.5)
        #expect(h.replies.isEmpty)
        let next = h.flush(confirm: false)
        #expect(h.replies[next]?.accepted == 1)
    }

    @Test func aCancelledShutdownStillShutsDown() {
        let h = PoolHarness()
        h.push(1...1)
        h.opened(0)
        let shutdown = h.shutdown()
        h.pool.cancel(reply: shutdown)
        h.push(2...2)
        #expect(h.failureCode(2) == .shutDown)
        h.write(0)
        h.acknowledge(0)
        h.advance(2.5)
        #expect(h.replies.isEmpty && h.eventsEnded)
        let again = h.shutdown()
        #expect(h.replies[again]?.accepted == 1)
        #expect(h.replies[again]?.notAccepted.count == 1)
    }
}
