import APN
import Testing
import APNTestSupport
import APNTestTraits

@Suite("Gateway session: shutdown and confirmed flush", .threadPerTest)
struct SessionShutdownFlushTests {
    @Test func shutdownClosesOnlyAfterTheGraceWindowAndLateErrorsStillCount() {
        var h = SessionHarness()
        h.push(1...3)
        h.connected()
        h.write()
        h.session.shutdown(now: h.now)
        h.drain()
        #expect(h.closeRequests == 0)
        h.advance(1)
        h.respond(.invalidToken, 2) // late, but inside the window
        #expect(h.outcome(2) == .rejected(.invalidToken))
        h.closed()
        h.connected()
        #expect(h.write().map(\.tag) == [3])
        h.advance(2.4)
        #expect(h.closeRequests == 1)
        h.advance(0.1)
        #expect(h.closeRequests == 2)
        #expect(h.outcome(3) == accepted(.graceWindow))
        h.closed()
        #expect(h.milestones.last == "shutdownComplete")
        #expect(h.outcomes.count == 3)
    }

    @Test func shutdownWhenIdleCompletesAtOnce() {
        var h = SessionHarness()
        h.session.shutdown(now: h.now)
        h.drain()
        #expect(h.milestones == ["shutdownComplete"])
        #expect(h.connectRequests == 0)
    }

    @Test func pushAfterShutdownReopens() {
        var h = SessionHarness()
        h.push(1...1)
        h.connected()
        h.write()
        h.session.shutdown(now: h.now)
        h.advance(2.5)
        h.closed()
        #expect(h.milestones.last == "shutdownComplete")
        h.push(2...2)
        #expect(h.connectRequests == 2)
    }

    @Test func confirmedFlushSettlesEverythingBeforeItThenContinuesOnAFreshConnection() {
        var h = SessionHarness()
        h.push(1...3)
        h.session.flush(now: h.now)
        h.push(4...5)
        h.connected()
        let frames = h.write()
        #expect(frames.map(\.tag) == [1, 2, 3, -1], "the marker follows 3 and nothing follows it")
        #expect(frames.last?.identifier == 4)
        // The gateway answers the marker's empty token with status 2 and its identifier.
        h.respond(.missingDeviceToken, 4)
        #expect((1...3).allSatisfy { h.outcome($0) == accepted(.flush) })
        #expect(h.milestones.contains("flushed(true)"))
        #expect(h.callbacks.isEmpty, "the marker is not a notification")
        h.closed()
        h.connected()
        #expect(h.write().map(\.tag) == [4, 5])
    }

    @Test func aRejectionBeforeTheMarkerIsReportedAndTheFlushGoesOn() {
        var h = SessionHarness()
        h.push(1...3)
        h.session.flush(now: h.now)
        h.connected()
        h.write()
        h.respond(.invalidToken, 2)
        #expect(h.outcome(1) == accepted(.laterIdentifier))
        #expect(h.outcome(2) == .rejected(.invalidToken))
        h.closed()
        h.connected()
        let frames = h.write()
        #expect(frames.map(\.tag) == [3, -1])
        h.respond(.missingDeviceToken, frames.last!.identifier)
        #expect(h.outcome(3) == accepted(.flush))
        #expect(h.milestones.filter { $0.hasPrefix("flushed") } == ["flushed(true)"])
    }

    @Test func aFlushWithNothingOutstandingIsConfirmedAtOnce() {
        var h = SessionHarness()
        h.session.flush(now: h.now)
        h.drain()
        #expect(h.milestones == ["flushed(true)"])
    }

    @Test func theSimpleFormatCannotConfirmAFlush() {
        var h = SessionHarness { $0.command = .simple }
        h.push(1...1)
        h.session.flush(now: h.now)
        h.drain()
        #expect(h.milestones == ["flushed(false)"])
    }

    @Test func anUnansweredMarkerEndsTheFlushUnconfirmedAfterTheGraceWindow() {
        var h = SessionHarness()
        h.push(1...1)
        h.session.flush(now: h.now)
        h.push(2...2)
        h.connected()
        #expect(h.write().map(\.tag) == [1, -1])
        h.advance(2.5)
        #expect(h.outcome(1) == accepted(.graceWindow))
        #expect(h.milestones.contains("flushed(false)"))
        #expect(h.write().map(\.tag) == [2], "writing resumes on the same connection")
    }
}
