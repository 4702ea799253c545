import APN
import Testing
import APNTestSupport
import APNTestTraits

@Suite("Gateway session: closes, failures and timers", .threadPerTest)
struct SessionConnectionTests {
    static let refused = APNError(code: .connectionFailed, message: "connection refused")

    @Test func silentCloseUnderTheReportPolicyReportsUnconfirmedAndResendsWhatTheSocketNeverTook() {
        var h = SessionHarness { $0.silentClosePolicy = .reportUnconfirmed }
        h.push(1...2)
        h.connected()
        h.write()
        h.advance(3) // 1 and 2 accepted by the grace window
        h.push(3...5)
        let frameLength = 13 + 32 + SessionHarness.payload(3).count
        h.write(frameLength + 10) // 3 whole, 4 partly, 5 not at all
        h.closed()
        #expect(h.outcome(1) == accepted(.graceWindow))
        #expect(h.outcome(3) == .unknownFate(.unconfirmedAtClose))
        #expect(h.callbacks.map(\.tag) == [3], "errorCallback(error, n): the close decided its outcome")
        #expect(h.callbacks.contains { if case .error(let error) = $0.code { error.code == .connectionClosed } else { false } })
        #expect(h.outcome(4) == nil && h.outcome(5) == nil)
        #expect(h.milestones.suffix(1) == ["disconnected"])
        #expect(h.connectRequests == 2, "reconnects for 4 and 5")
        h.connected()
        #expect(h.write().map(\.tag) == [4, 5])
    }

    @Test func silentCloseByDefaultResendsMarkedPossiblyDuplicated() {
        var h = SessionHarness()
        h.push(1...3)
        h.connected()
        h.write()
        h.closed()
        h.connected()
        #expect(h.write().map(\.tag) == [1, 2, 3, -1], "resent, then a marker to settle them in a round trip")
        h.respond(.missingDeviceToken, 4)
        #expect((1...3).allSatisfy { h.outcome($0) == acceptedTwice(.flush) })
        #expect(h.callbacks.isEmpty, "resent and then accepted: nothing failed")
    }

    @Test func aCopyResentAsPossiblyDuplicatedIsNotSentAThirdTime() {
        var h = SessionHarness()
        h.push(1...2)
        h.connected()
        h.write()
        h.closed() // the gateway may have taken them: resent, marked
        h.connected()
        #expect(h.write().map(\.tag) == [1, 2, -1])
        let reset = APNError(code: .connectionFailed, message: "connection reset by peer")
        h.closed(reset) // and again, before the marker was answered
        #expect(h.outcome(1) == .unknownFate(.unconfirmedAtClose), "two copies may have arrived: a third is not sent")
        #expect(h.outcome(2) == .unknownFate(.unconfirmedAtClose))
        #expect(h.callbacks.map(\.tag) == [1, 2], "errorCallback(error, n): the second close decided them")
        #expect(h.callbacks.first?.code == .error(reset))
        #expect(h.connectRequests == 2, "nothing left to send: no reconnect")
    }

    @Test func aFailedConnectCallsNoErrorCallbackForNotificationsThatStillWait() {
        var h = SessionHarness()
        h.push(1...2)
        h.connectFailed(Self.refused)
        #expect(h.callbacks.isEmpty, "1 and 2 will be sent on a later attempt")
        #expect(
            h.milestones == ["socketError(connectionFailed)", "connectAttemptFailed(connectionFailed, 1s)"],
            "the error itself is reported once, then the backoff")
        h.advance(1)
        h.connected()
        h.write()
        h.advance(3)
        #expect(h.outcome(1) == accepted(.graceWindow) && h.outcome(2) == accepted(.graceWindow))
        #expect(h.callbacks.isEmpty, "never told of an error that did not decide their outcome")
    }

    @Test func aResetCallsErrorCallbackOnlyForWhatItLeftOfUnknownFate() {
        var h = SessionHarness {
            $0.writeBatchBytes = 1
            $0.silentClosePolicy = .reportUnconfirmed
        }
        h.push(1...3)
        h.connected()
        h.write() // only 1 was encoded
        let reset = APNError(code: .connectionFailed, message: "connection reset by peer")
        h.closed(reset)
        #expect(h.milestones.filter { $0.hasPrefix("socketError") } == ["socketError(connectionFailed)"])
        #expect(h.outcome(1) == .unknownFate(.unconfirmedAtClose))
        #expect(h.callbacks.map(\.tag) == [1], "2 and 3 were never written: they wait for the next connection")
        #expect(h.callbacks.first?.code == .error(reset))
    }

    @Test func connectFailuresBackOffExponentiallyThenFailEverythingWith514() {
        var h = SessionHarness { $0.connectionRetryLimit = 3 }
        h.push(1...2)
        var delays: [Double] = []
        for _ in 0..<3 {
            let before = h.now
            h.connectFailed(Self.refused)
            let at = h.timer!
            delays.append(Double((at - before).components.seconds))
            h.advance(Double((at - h.now).components.seconds))
            #expect(h.connectRequests == delays.count + 1)
        }
        #expect(delays == [1, 2, 4])
        h.connectFailed(Self.refused) // the fourth failure: one first attempt plus three retries
        #expect(h.failureCode(1) == .connectionRetryLimitExceeded)
        #expect(h.failureCode(2) == .connectionRetryLimitExceeded)
        #expect(h.milestones.contains("error(connectionRetryLimitExceeded)"))
        #expect(h.callbacks.suffix(2).map(\.code) == [.status(.connectionRetryLimitExceeded), .status(.connectionRetryLimitExceeded)])
        h.push(3...3)
        #expect(h.failureCode(3) == .connectionTerminated)
        #expect(h.callbacks.last?.code == .status(.connectionTerminated))
        #expect(h.connectRequests == 4)
    }

    @Test func eachCountedFailureReportsItsBackoffAndTheLastNone() {
        var h = SessionHarness { $0.connectionRetryLimit = 2; $0.maxBackoff = .seconds(2) }
        h.push(1...1)
        for _ in 0..<3 {
            h.connectFailed(Self.refused)
            if let at = h.timer { h.advance(Double((at - h.now).components.seconds)) }
        }
        #expect(h.milestones.filter { $0.hasPrefix("connectAttemptFailed") } == [
            "connectAttemptFailed(connectionFailed, 1s)", "connectAttemptFailed(connectionFailed, 2s)",
            "connectAttemptFailed(connectionFailed, nil)",
        ])
        #expect(h.milestones.last == "error(connectionRetryLimitExceeded)", "514 follows the last")
    }

    @Test func withoutRetriesTheFirstFailedConnectTerminates() {
        var h = SessionHarness { $0.retriesConnections = false }
        h.push(1...1)
        h.connectFailed(Self.refused)
        #expect(h.milestones == [
            "socketError(connectionFailed)", "connectAttemptFailed(connectionFailed, nil)", "transmissionError(514,1)",
            "error(connectionRetryLimitExceeded)",
        ])
        #expect(h.failureCode(1) == .connectionRetryLimitExceeded)
        #expect(h.connectRequests == 1)
    }

    @Test func backoffIsCapped() {
        var h = SessionHarness { $0.connectionRetryLimit = 0; $0.maxBackoff = .seconds(8) }
        h.push(1...1)
        for _ in 0..<6 {
            h.connectFailed(Self.refused)
            let wait = h.timer! - h.now
            #expect(wait <= .seconds(8))
            h.advance(Double(wait.components.seconds))
        }
        #expect(h.outcome(1) == nil, "retry limit 0 means unlimited")
    }

    @Test func credentialFailureFailsEverythingWith513AtOnce() {
        var h = SessionHarness()
        h.push(1...2)
        h.connectFailed(APNError(code: .credentials, message: "key does not match certificate"))
        #expect(h.failureCode(1) == .initialisationFailed)
        #expect(h.failureCode(2) == .initialisationFailed)
        #expect(h.callbacks.map(\.code).contains(.status(.moduleInitialisationFailed)))
        #expect(h.milestones.last == "error(initialisationFailed)")
        h.push(3...3)
        #expect(h.failureCode(3) == .connectionTerminated)
    }

    @Test func aConnectionAttemptPastConnectTimeoutIsAbortedAndCountsAsAFailure() {
        var h = SessionHarness()
        h.push(1...1)
        #expect(h.timer == .seconds(10))
        h.advance(10)
        #expect(h.abortRequests == 1)
        h.connectFailed(APNError(code: .connectionFailed, message: "aborted"))
        #expect(h.milestones == ["socketError(connectTimeout)", "connectAttemptFailed(connectTimeout, 1s)"])
        #expect(h.timer == .seconds(11), "backs off 1 s")
    }

    @Test func anIdleConnectionIsClosedAfterIdleTimeout() {
        var h = SessionHarness { $0.idleTimeout = .seconds(60) }
        h.push(1...1)
        h.connected()
        h.write()
        h.advance(3)
        #expect(h.outcome(1) == accepted(.graceWindow))
        #expect(h.closeRequests == 0)
        h.advance(57)
        #expect(h.milestones.suffix(1) == ["timeout"])
        #expect(h.closeRequests == 1)
        h.closed()
        #expect(h.connectRequests == 1, "nothing to send: stays closed until the next push")
        h.push(2...2)
        #expect(h.connectRequests == 2)
    }

    @Test func idleCloseWaitsForTheGraceWindowOfTheLastWrite() {
        var h = SessionHarness { $0.idleTimeout = .seconds(1) }
        h.push(1...1)
        h.connected()
        h.write()
        h.advance(1)
        #expect(h.closeRequests == 0, "an error response could still come")
        h.advance(1.5)
        #expect(h.closeRequests == 1)
        #expect(h.outcome(1) == accepted(.graceWindow))
    }

    @Test func malformedBytesFromTheGatewayBreakTheConnection() {
        var h = SessionHarness()
        h.push(1...2)
        h.connected()
        h.write()
        h.receive([0x42])
        #expect(h.milestones.contains("socketError(malformedResponse)"))
        #expect(h.closeRequests == 1)
        #expect(h.outcome(1) == nil, "the gateway may have taken them: resent, marked")
        h.closed()
        h.advance(1) // a peer that is not a gateway is backed off from
        h.connected()
        #expect(h.write().map(\.tag) == [1, 2, -1])
        h.advance(3)
        #expect(h.outcome(1) == acceptedTwice(.graceWindow))
    }
}
