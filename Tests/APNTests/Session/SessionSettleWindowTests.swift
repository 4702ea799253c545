import APN
import Testing
import APNTestSupport
import APNTestTraits

/// A connection that the gateway ends right after the handshake (a refused or
/// wrong-environment certificate under TLS 1.3) must back off like a failed attempt, not
/// reconnect at once forever.
@Suite("Session: settle window", .threadPerTest)
struct SessionSettleWindowTests {
    static func settling(limit: Int = 10) -> SessionHarness {
        SessionHarness {
            $0.settleWindow = .milliseconds(100)
            $0.connectionRetryLimit = limit
        }
    }

    @Test func aCloseWithinTheSettleWindowBacksOffAndTellsWhy() {
        var h = Self.settling()
        h.push(1...1)
        h.connected()
        h.advance(0.05)
        h.closed()
        #expect(h.connectRequests == 1, "no immediate reconnect")
        #expect(h.milestones.contains { $0.hasPrefix("socketError(connectionFailed") })
        #expect(h.timer == .seconds(1.05), "backs off 1 s like a failed attempt")
        #expect(h.callbacks.isEmpty, "the notification still waits: nothing decided its outcome")
        h.advance(1)
        #expect(h.connectRequests == 2)
    }

    @Test func repeatedShortLivedConnectionsReachTheRetryLimit() {
        var h = Self.settling(limit: 2)
        h.push(1...1)
        for _ in 0..<3 {
            h.connected()
            h.closed()
            if let timer = h.timer, timer > h.now { h.advance(Double((timer - h.now).components.seconds)) }
        }
        #expect(h.failureCode(1) == .connectionRetryLimitExceeded)
        let terminated = h.session.isTerminated
        #expect(terminated)
    }

    @Test func aConnectionThatOutlivesTheWindowReconnectsAtOnceAndResetsTheCount() {
        var h = Self.settling(limit: 1)
        h.push(1...1)
        h.connectFailed()
        h.advance(1)
        h.connected()
        h.advance(0.2)
        h.push(2...2)
        h.closed()
        #expect(h.connectRequests == 3, "reconnects at once: the connection had settled")
        h.connectFailed()
        let terminatedNow = h.session.isTerminated
        #expect(!terminatedNow, "the earlier failure was forgotten once a connection settled")
    }

    @Test func withoutASettleWindowAnImmediateCloseReconnectsAtOnce() {
        var h = SessionHarness()
        h.push(1...1)
        h.connected()
        h.closed()
        #expect(h.connectRequests == 2)
    }

    static let tlsRefusal = APNError(code: .refusedByGateway, message: "TLS alert: certificate required")

    @Test func whatWasWrittenBeforeATLSRefusalIsSentAgainAsItWas() {
        var h = Self.settling()
        h.push(1...3)
        h.connected()
        _ = h.write()
        h.advance(0.01)
        h.closed(Self.tlsRefusal)
        #expect(h.outcomes.isEmpty, "nothing settled: the gateway's TLS refused the session")
        let socketErrors = h.milestones.filter { $0.hasPrefix("socketError") }
        #expect(socketErrors == ["socketError(connectionFailed)"], "one socketError (the certificate hint), not two")
        #expect(h.timer == .seconds(1.01), "backs off like a failed attempt")
        h.advance(1)
        h.connected()
        #expect(h.write().map(\.tag) == [1, 2, 3], "all three sent again, in order")
        h.advance(3)
        #expect(h.outcome(3) == .accepted(Acceptance(evidence: .graceWindow)), "not marked: none was processed")
    }

    @Test func aSilentCloseSoonAfterWritingIsASilentCloseThatStillBacksOff() {
        var h = Self.settling()
        h.push(1...3)
        h.connected()
        _ = h.write()
        h.advance(0.05)
        h.closed()
        // The gateway may have taken them (it accepted some, then closed): resent as
        // possibly duplicated, never as if nothing had been processed.
        #expect(h.outcomes.isEmpty)
        #expect(!h.milestones.contains { $0.hasPrefix("socketError") }, "no certificate hint: something was written")
        #expect(h.callbacks.isEmpty)
        #expect(h.timer == .seconds(1.05), "still counted as a failed attempt: backs off 1 s")
        #expect(h.connectRequests == 1)
        h.advance(1)
        h.connected()
        #expect(h.write().map(\.tag) == [1, 2, 3, -1])
        h.advance(3)
        #expect((1...3).allSatisfy { h.outcome($0) == acceptedTwice(.graceWindow) })
    }

    @Test func underTheReportPolicyASilentCloseSoonAfterWritingLeavesThemOfUnknownFate() {
        var h = SessionHarness {
            $0.settleWindow = .milliseconds(100)
            $0.silentClosePolicy = .reportUnconfirmed
        }
        h.push(1...2)
        h.connected()
        _ = h.write()
        h.closed()
        #expect(h.outcome(1) == .unknownFate(.unconfirmedAtClose))
        #expect(h.outcome(2) == .unknownFate(.unconfirmedAtClose))
        #expect(h.callbacks.map(\.tag) == [1, 2], "errorCallback(error, n) once each: the close decided them")
        #expect(h.timer == .seconds(1))
    }

    @Test func aMalformedResponseBacksOffInsteadOfReconnectingAtOnce() {
        var h = SessionHarness()
        h.push(1...1)
        h.connected()
        _ = h.write()
        h.receive([0x09, 0, 0, 0, 0, 0])
        #expect(h.closeRequests == 1)
        h.closed()
        #expect(h.connectRequests == 1, "no immediate reconnect to a peer that is not a gateway")
        #expect(h.timer != nil)
        h.advance(1)
        #expect(h.connectRequests == 2)
    }

    @Test func aShutdownAskedBeforeTheRetryLimitCompletesWhenItIsReached() {
        var h = SessionHarness { $0.connectionRetryLimit = 1 }
        h.push(1...1)
        h.session.shutdown(now: h.now)
        h.drain()
        h.connectFailed()
        h.advance(1)
        h.connectFailed()
        #expect(h.failureCode(1) == .connectionRetryLimitExceeded)
        #expect(h.milestones.last == "shutdownComplete")
    }

    @Test func aShutdownWhileBackingOffWithNothingToSendCompletesAtOnce() {
        var h = SessionHarness()
        h.session.open(now: h.now)
        h.drain()
        h.connectFailed()
        #expect(h.timer != nil, "backing off")
        h.session.shutdown(now: h.now)
        h.drain()
        #expect(h.milestones.last == "shutdownComplete")
        h.advance(2)
        #expect(h.connectRequests == 1, "no reconnect after shutdown")
    }

    @Test func aPeerThatStopsReadingIsGivenUpAfterTheIdleTimeoutAndWhatWaitedIsResent() {
        var h = SessionHarness {
            $0.idleTimeout = .seconds(60)
            $0.writeStallTimeout = nil
        }
        h.push(1...2)
        h.connected()
        _ = h.write(10)  // the socket takes 10 bytes, then nothing more
        h.advance(59)
        #expect(h.closeRequests == 0)
        h.advance(1)
        #expect(h.closeRequests == 1)
        #expect(h.milestones.contains("timeout"))
        #expect(h.milestones.contains { $0.hasPrefix("socketError(connectionFailed") })
        h.closed()
        #expect(h.connectRequests == 1, "a stalled connection is a failed attempt: it backs off first")
        h.advance(1)
        #expect(h.connectRequests == 2, "reconnects: the notifications still wait")
        h.connected()
        #expect(h.write().map(\.tag) == [1, 2])
    }

    @Test func theWriteStallTimeoutEndsAStalledConnectionAsAFailedAttempt() {
        var h = SessionHarness {
            $0.writeStallTimeout = .seconds(30)
            $0.connectionRetryLimit = 1
            $0.settleWindow = .milliseconds(100)
        }
        h.push(1...2)
        h.connected()
        _ = h.write(10)
        h.advance(29.9)
        #expect(h.closeRequests == 0)
        h.advance(0.1)
        #expect(h.closeRequests == 1, "30 s without the socket taking a byte")
        h.closed()
        h.advance(1)
        h.connected()
        _ = h.write(10)
        h.advance(30)
        h.closed()
        // The second stall in a row is past the retry limit of 1: the send ends, failed.
        #expect(h.failureCode(1) == .connectionRetryLimitExceeded && h.failureCode(2) == .connectionRetryLimitExceeded)
        #expect(h.duplicateOutcomes.isEmpty)
    }

    @Test func aSettleWindowCloseCountsNoRetryAndNeverResendsAnEvictedEntry() {
        var h = SessionHarness {
            $0.settleWindow = .milliseconds(100)
            $0.cacheLength = 2
            $0.autoAdjustCache = false
        }
        h.push(1...4, retryLimit: 0)
        h.connected()
        _ = h.write()
        h.closed(Self.tlsRefusal)
        #expect(h.outcome(1) == .unknownFate(.evictedFromCache), "payload released: cannot be resent")
        #expect(h.outcome(2) == .unknownFate(.evictedFromCache))
        #expect(h.outcome(3) == nil && h.outcome(4) == nil, "retry limit 0, yet not failed: no retry was counted")
        let resends = h.session.resendCount
        #expect(resends == 0)
        h.advance(1)
        h.connected()
        #expect(h.write().map(\.tag) == [3, 4])
    }
}
