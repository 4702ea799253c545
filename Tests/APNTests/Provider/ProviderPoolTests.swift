@testable import APN
import APNHTTP2
import Testing
import APNTestSupport
import APNTestTraits

/// The provider pool's transition table, row by row, against a real HTTP/2 server session
/// in memory (``ProviderPoolHarness``). requestTimeout 10 s, pingTimeout 5 s, pingInterval
/// 60 s, connect backoff from 100 ms, 5xx backoff from 1 s, connectionRetryLimit 3.
@Suite("HTTP/2 provider pool: connections, liveness and what becomes of each request", .threadPerTest)
struct ProviderPoolTests {
    // MARK: Connecting

    @Test func nothingConnectsUntilASendThenOneConnectionCarriesWhatTheServerAllows() {
        let h = ProviderPoolHarness()
        h.serverConfiguration.maxConcurrentStreams = 2
        #expect(h.connects.isEmpty)
        h.send(1...5)
        #expect(h.connects == [1])
        let c = h.connect()
        #expect(h.received(on: c) == [1, 2], "one stream until the server's SETTINGS, then its limit of 2")
        h.answer(1, on: c)
        #expect(h.received(on: c) == [1, 2, 3])
        for n in 2...5 { h.answer(n, on: c) }
        #expect((1...5).allSatisfy(h.delivered))
        #expect(h.connects == [1], "one connection was enough")
        #expect(h.duplicates.isEmpty)
    }

    @Test func failedConnectsBackOffDoublingAndAtTheRetryLimitWhatWaitsFailsUnsent() {
        let h = ProviderPoolHarness()
        h.send(1...2)
        h.failConnect()
        #expect(h.events == ["connectionFailed", "retryIn(0.1 seconds)"])
        h.advance(.milliseconds(99))
        #expect(h.connects == [1])
        h.advance(.milliseconds(1))
        #expect(h.connects == [1, 2])
        h.failConnect()
        #expect(h.events.last == "retryIn(0.2 seconds)")
        h.advance(.milliseconds(200))
        h.failConnect()
        #expect(h.events.last == "gaveUp")
        #expect(h.code(1) == .connectionFailed && h.code(2) == .connectionFailed)
        #expect(h.responses[1]?.mayHaveBeenDelivered == false, "never written")
        h.advance(.seconds(10))
        #expect(h.connects == [1, 2, 3], "nothing waits: no more attempts")
    }

    @Test func aServerThatClosesEveryConnectionAnsweringNothingIsGivenUpAtTheRetryLimit() {
        // Waiting has no deadline of its own, so this rule is what ends it.
        let h = ProviderPoolHarness()
        h.serverConfiguration.maxConcurrentStreams = 1
        h.send(1...5)
        for round in 1...3 {
            let c = h.connect()
            #expect(h.received(on: c) == [round])
            h.socketEnds(c)
            h.advance(.seconds(1))
        }
        for n in 1...3 {
            #expect(h.code(n) == .connectionFailed)
            #expect(h.responses[n]?.mayHaveBeenDelivered == true, "written, never answered")
        }
        #expect(h.code(4) == .connectionFailed && h.code(5) == .connectionFailed)
        #expect(h.responses[4]?.mayHaveBeenDelivered == false)
        #expect(h.events.contains("gaveUp"))
        #expect(h.duplicates.isEmpty)
    }

    // MARK: GOAWAY and draining

    @Test func goawayDrainsTheConnectionAndWhatItDidNotProcessGoesOnANewOneOnce() {
        let h = ProviderPoolHarness()
        h.send(1...4)
        let first = h.connect()
        #expect(h.received(on: first) == [1, 2, 3, 4])
        h.answer(1, on: first)
        h.goaway(on: first, lastStreamID: h.stream(of: 2, on: first))
        #expect(h.events.contains("goaway"))
        #expect(h.connects.count == 2, "3 and 4 were refused unprocessed: a new connection takes them")
        let second = h.connect()
        #expect(h.received(on: second) == [3, 4])
        #expect(h.closes.isEmpty, "2 is still due on the draining connection")
        h.answer(2, on: first)
        #expect(h.closes == [first], "drained")
        h.answer(3, on: second)
        h.answer(4, on: second)
        #expect((1...4).allSatisfy(h.delivered))
        #expect(h.responses[3]?.attempts == 2)
        #expect(h.duplicates.isEmpty)
    }

    /// A reload's new credentials (#42): Apple refuses a connection whose provider token
    /// changes within 20 minutes (`TooManyProviderTokenUpdates`), so what is sent from then
    /// on goes on a new connection with the new token, and the old one finishes what it
    /// carries and closes — nothing sent twice.
    @Test func newCredentialsGoOnANewConnectionAndTheOldOneDrains() {
        var old = Provider.Options()
        old.authentication = .existingToken("old-token")
        let h = ProviderPoolHarness()
        h.pool.replaceAuthorization(ProviderAuthorization(old))
        h.send(1...2)
        let first = h.connect()
        #expect(h.received(on: first) == [1, 2])
        #expect(h.lastHeaders[first]?.contains { $0.name == "authorization" && $0.value == "bearer old-token" } == true)
        var new = Provider.Options()
        new.authentication = .existingToken("new-token")
        h.pool.replaceAuthorization(ProviderAuthorization(new))
        h.send(3...4)
        #expect(h.connects.count == 2, "a new connection for the new token")
        let second = h.connect()
        #expect(h.received(on: second) == [3, 4])
        #expect(h.received(on: first) == [1, 2], "nothing more on the old connection")
        #expect(h.lastHeaders[second]?.contains { $0.name == "authorization" && $0.value == "bearer new-token" } == true)
        #expect(h.closes.isEmpty, "1 and 2 are still due on the draining connection")
        h.answer(1, on: first)
        h.answer(2, on: first)
        #expect(h.closes == [first], "drained, then closed")
        h.answer(3, on: second)
        h.answer(4, on: second)
        #expect((1...4).allSatisfy(h.delivered) && h.duplicates.isEmpty)
    }

    @Test func a503ShutdownDrainsTheConnectionAndTheRetryGoesOnANewOneAfterTheServerErrorBackoff() {
        let h = ProviderPoolHarness()
        h.send(1...2)
        let first = h.connect()
        h.reject(1, on: first, status: 503, reason: "Shutdown")
        h.answer(2, on: first)
        #expect(h.closes == [first], "no new stream on a server shutting down")
        h.advance(.milliseconds(999))
        #expect(h.connects.count == 1)
        h.advance(.milliseconds(1))
        let second = h.connect()
        #expect(h.received(on: second) == [1])
        h.answer(1, on: second)
        #expect(h.delivered(1) && h.delivered(2))
        #expect(h.responses[1]?.attempts == 2)
    }

    // MARK: Back-off on 5xx (row 7)

    @Test func a5xxIsRetriedOnlyAfterTheServerErrorBackoffDoubling() {
        let h = ProviderPoolHarness()
        h.send(1...1)
        let c = h.connect()
        h.reject(1, on: c, status: 500, reason: "InternalServerError")
        h.advance(.milliseconds(999))
        #expect(h.received(on: c) == [1])
        h.advance(.milliseconds(1))
        #expect(h.received(on: c) == [1, 1])
        h.reject(1, on: c, status: 502, reason: "BadGateway")
        h.advance(.milliseconds(1_999))
        #expect(h.received(on: c).count == 2)
        h.advance(.milliseconds(1))
        #expect(h.received(on: c).count == 3)
        h.reject(1, on: c, status: 503, reason: "ServiceUnavailable")
        #expect(h.code(1) == .retriesExhausted, "retryLimit 2")
        #expect(h.responses[1]?.error?.status == 503)
    }

    // MARK: Timeouts count from the write (row 3)

    @Test func timeWaitingForAStreamDoesNotCountAgainstTheRequestTimeout() {
        let h = ProviderPoolHarness()
        h.serverConfiguration.maxConcurrentStreams = 1
        h.send(1...3)
        let c = h.connect()
        for n in 1...3 {
            #expect(h.received(on: c).last == n)
            h.advance(.seconds(9))
            h.answer(n, on: c)
        }
        #expect((1...3).allSatisfy(h.delivered), "27 s in all, each answered 9 s after its write")
        #expect(h.events.filter { $0 == "lost" }.isEmpty)
    }

    @Test func aRequestUnansweredForTheTimeoutAfterItsWriteTimesOutMaybeDeliveredAndItsStreamIsReset() {
        let h = ProviderPoolHarness()
        h.send(1...2)
        let c = h.connect()
        h.advance(.seconds(3))
        h.answer(2, on: c)
        h.advance(.seconds(7))
        #expect(h.code(1) == .timedOut)
        #expect(h.responses[1]?.mayHaveBeenDelivered == true)
        #expect(h.responses[1]?.error?.message.contains("of its write") == true)
        #expect(h.resets[c]?.map(\.code) == [.cancel])
        #expect(h.closes.isEmpty, "the server answered within the timeout: not hung")
    }

    // MARK: Liveness

    @Test func aServerThatAnswersPingsButNoRequestsIsGivenUpAsHungAndWhatWaitsGoesOnANewConnection() {
        let h = ProviderPoolHarness()
        h.serverConfiguration.maxConcurrentStreams = 2
        h.send(1...3)
        let first = h.connect()
        #expect(h.received(on: first) == [1, 2])
        h.advance(.seconds(5))
        #expect(h.events.contains("pingAnswered"), "PINGed after pingTimeout of silence with streams open")
        h.advance(.seconds(5))
        #expect(h.closes == [first])
        #expect(h.code(1) == .timedOut && h.code(2) == .timedOut)
        #expect(h.responses[1]?.mayHaveBeenDelivered == true)
        #expect(h.events.contains("retryIn(0.1 seconds)"), "a hung connection counts as a failed attempt")
        h.advance(.milliseconds(100))
        let second = h.connect()
        #expect(h.received(on: second) == [3])
        h.answer(3, on: second)
        #expect(h.delivered(3))
    }

    @Test func anIdleConnectionIsPingedAndOneWhosePingGoesUnansweredIsClosed() {
        let h = ProviderPoolHarness()
        h.send(1...1)
        let c = h.connect()
        h.answer(1, on: c)
        h.advance(.seconds(60))
        #expect(h.events.filter { $0 == "pingAnswered" }.count == 1)
        h.muted.insert(c)
        h.advance(.seconds(60))
        #expect(h.closes.isEmpty)
        h.advance(.seconds(5))
        #expect(h.closes == [c])
        #expect(h.events.last == "lost")
        #expect(h.connects == [1], "nothing waits: no reconnect")
    }

    @Test func aServerThatStopsReadingIsGivenUpAfterThePingTimeoutItsStreamsMaybeDelivered() {
        let h = ProviderPoolHarness()
        h.send(1...1)
        let c = h.connect()
        h.answer(1, on: c)
        h.blocked.insert(c)
        h.send(2...3)
        h.advance(.milliseconds(4_999))
        #expect(h.closes.isEmpty)
        h.advance(.milliseconds(1))
        #expect(h.closes == [c])
        for n in 2...3 {
            #expect(h.code(n) == .connectionFailed)
            #expect(h.responses[n]?.mayHaveBeenDelivered == true)
        }
    }

    // MARK: Lost connections (row 9)

    @Test func streamsOpenWhenTheConnectionIsLostSayTheyMayHaveBeenDeliveredAndAreNotResent() {
        for failure in [nil, ProviderError.lost("the connection failed reading: connection reset by peer")] {
            let h = ProviderPoolHarness()
            h.send(1...3)
            let c = h.connect()
            h.answer(1, on: c)
            h.socketEnds(c, failure: failure)
            for n in 2...3 {
                #expect(h.code(n) == .connectionFailed)
                #expect(h.responses[n]?.mayHaveBeenDelivered == true)
                #expect(h.responses[n]?.error?.message.contains("may have been delivered") == true)
            }
            #expect(h.connects == [1], "not sent again")
            #expect(h.duplicates.isEmpty)
        }
    }

    @Test func aRefusedStreamGoesAgainAndAnotherResetFailsMaybeDelivered() {
        let h = ProviderPoolHarness()
        h.send(1...2)
        let c = h.connect()
        h.reset(1, on: c, code: .refusedStream)
        #expect(h.received(on: c) == [1, 2, 1])
        h.reset(2, on: c, code: .internalError)
        #expect(h.code(2) == .connectionFailed && h.responses[2]?.mayHaveBeenDelivered == true)
        h.answer(1, on: c)
        #expect(h.delivered(1))
    }

    // MARK: Cancel and shut down

    @Test func cancellingASendResetsItsStreamsAndCompletesEachOnce() {
        let h = ProviderPoolHarness()
        let cancellation = ProviderCancellation()
        h.send(1...2, cancellation: cancellation)
        h.send(3...3)
        let c = h.connect()
        h.pool.cancel(cancellation)
        h.turn()
        #expect(h.code(1) == .cancelled && h.code(2) == .cancelled)
        #expect(h.responses[1]?.mayHaveBeenDelivered == true, "written before the cancel: not recalled")
        #expect(h.resets[c]?.count == 2)
        h.answer(3, on: c)
        #expect(h.delivered(3))
        #expect(h.duplicates.isEmpty)
    }

    @Test func withdrawAnswersEverythingAtOnceNothingMoreIsWrittenAndTheConnectionCloses() {
        let h = ProviderPoolHarness()
        h.serverConfiguration.maxConcurrentStreams = 1
        h.send(1...3)
        // The server allows one stream: 1 is written, 2 and 3 wait.
        let c = h.connect()
        h.exchange(c)
        h.pool.withdraw(reply: {})
        h.turn()
        #expect(h.code(1) == .shutDown && h.responses[1]?.mayHaveBeenDelivered == true, "on the wire: may have been delivered")
        #expect(h.code(2) == .shutDown && h.responses[2]?.mayHaveBeenDelivered == false, "never written")
        #expect(h.code(3) == .shutDown && h.responses[3]?.mayHaveBeenDelivered == false, "never written")
        #expect(h.finished && h.replies == 1)
        #expect(h.closes == [c])
        var types: [UInt8] = []
        var last = h.lastBytes[c] ?? []
        while last.count >= 9 {
            types.append(last[3])
            last.removeFirst(9 + (Int(last[0]) << 16 | Int(last[1]) << 8 | Int(last[2])))
        }
        // The connection ends with GOAWAY (nghttp2 sends nothing after it): 1's stream ends with it.
        #expect(types.last == 0x07, "GOAWAY before the close: \(types)")
        h.send(4...4)
        #expect(h.code(4) == .shutDown)
        #expect(h.duplicates.isEmpty)
    }

    @Test func shutdownFinishesWhatIsInFlightThenSendsGoawayAndRefusesLaterSends() {
        let h = ProviderPoolHarness()
        h.send(1...1)
        let c = h.connect()
        h.pool.shutdown(reply: {})
        h.turn()
        #expect(!h.finished, "1 is in flight")
        h.answer(1, on: c)
        #expect(h.finished && h.replies == 1)
        #expect(h.closes == [c])
        let goaway = h.lastBytes[c] ?? []
        #expect(goaway.count >= 9 && goaway[3] == 0x07, "a GOAWAY frame before the close")
        h.send(2...2)
        #expect(h.code(2) == .shutDown)
        #expect(!h.stopped)
        h.pool.release()
        h.turn()
        #expect(h.stopped)
    }
}

/// Rows the review of the first version found untested or wrong.
@Suite("HTTP/2 provider pool: failed attempts, odd servers, odd inputs", .threadPerTest)
struct ProviderPoolEdgeTests {
    @Test func aServerThatSendsGoawayBeforeAnyAnswerOnEveryConnectionIsGivenUpAtTheRetryLimit() {
        let h = ProviderPoolHarness()
        h.send(1...3)
        for _ in 1...3 {
            let c = h.connect()
            h.goaway(on: c, lastStreamID: 0)
            h.advance(.seconds(1))
        }
        #expect(h.events.contains("gaveUp"))
        for n in 1...3 {
            #expect(h.code(n) == .connectionFailed)
            #expect(h.responses[n]?.mayHaveBeenDelivered == false, "refused unprocessed (above last-stream-id 0)")
        }
        #expect(h.duplicates.isEmpty)
    }

    @Test func aConnectionThatCarriedNoStreamClosesWithoutCountingAsAFailedAttempt() {
        let h = ProviderPoolHarness { $0.maxConnections = 2 }
        h.serverConfiguration.maxConcurrentStreams = 1
        h.send(1...2)
        let first = h.connect()
        #expect(h.connects.count == 2, "1 holds the only stream: a second connection for 2")
        h.answer(1, on: first)
        #expect(h.received(on: first) == [1, 2], "the first took 2 before the second was up")
        let second = h.connect()
        #expect(h.received(on: second).isEmpty)
        h.goaway(on: second, lastStreamID: 0)
        h.socketEnds(second)
        #expect(!h.events.contains { $0.hasPrefix("retryIn") || $0 == "gaveUp" }, "\(h.events)")
        h.answer(2, on: first)
        #expect(h.delivered(1) && h.delivered(2))
    }

    @Test func aServerThatAllowsNoStreamsIsGivenUpAndWhatWaitsFailsAtTheRetryLimit() {
        let h = ProviderPoolHarness()
        h.serverConfiguration.maxConcurrentStreams = 0
        h.send(1...1)
        for _ in 1...3 {
            _ = h.connect()
            h.advance(.seconds(1))
        }
        #expect(h.code(1) == .connectionFailed, "\(h.events)")
        #expect(h.closes.count == 3)
    }

    @Test func maxConcurrentStreamsZeroStillSendsOneAtATime() {
        let h = ProviderPoolHarness { $0.maxConcurrentStreams = 0 }
        h.send(1...2)
        let c = h.connect()
        #expect(h.received(on: c) == [1])
        h.answer(1, on: c)
        h.answer(2, on: c)
        #expect(h.delivered(2))
    }

    @Test func anAnswerWithoutAUsableStatusFailsAsMaybeDelivered() {
        let h = ProviderPoolHarness()
        h.send(1...1)
        let c = h.connect()
        try! h.servers[c]!.submitResponse(
            streamID: h.stream(of: 1, on: c), headers: [HTTP2Header(":status", "999")], body: [])
        h.exchange(c)
        #expect(h.code(1) == .protocolError)
        #expect(h.responses[1]?.mayHaveBeenDelivered == true)
    }

    @Test func aCredentialFailureGivesUpAtOnce() {
        let h = ProviderPoolHarness()
        h.send(1...2)
        h.failConnect(ProviderError(code: .authentication, message: "no such key"))
        #expect(h.events.last == "gaveUp")
        #expect(h.code(1) == .authentication && h.code(2) == .authentication)
    }

    @Test func aConnectAnsweredForAnotherAttemptOrAfterTheCloseIsRefused() {
        let h = ProviderPoolHarness()
        h.send(1...1)
        #expect(h.pool.connected(attempt: 99, peer: "late:443", now: h.now) == nil, "not the attempt under way")
        let c = h.connect()
        h.answer(1, on: c)
        h.pool.shutdown(reply: {})
        h.turn()
        #expect(h.finished)
        #expect(h.pool.connected(attempt: h.connects.last!, peer: "late:443", now: h.now) == nil)
        h.send(2...2)
        #expect(h.code(2) == .shutDown)
    }

    @Test func aSendAlreadyCancelledAndASendWhileClosingCompleteAtOnce() {
        let h = ProviderPoolHarness()
        let cancellation = ProviderCancellation()
        cancellation.cancel()
        h.send(1...1, cancellation: cancellation)
        #expect(h.code(1) == .cancelled && h.connects.isEmpty)
        h.send(2...2)
        let c = h.connect()
        h.pool.shutdown(reply: {})
        h.send(3...3)
        #expect(h.code(3) == .shutDown, "closing: refused, while 2 is still due")
        h.answer(2, on: c)
        #expect(h.delivered(2) && h.finished)
    }

    @Test func barriersAreAnsweredInOrderWithWhatCameBefore() {
        let h = ProviderPoolHarness()
        h.pool.barrier(reply: {})
        h.drain()
        #expect(h.replies == 1)
    }
}
