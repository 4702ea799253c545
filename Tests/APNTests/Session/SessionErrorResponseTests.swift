import APN
import Testing
import APNTestSupport
import APNTestTraits

@Suite("Gateway session: error responses and the resend cache", .threadPerTest)
struct SessionErrorResponseTests {
    /// Ten notifications written on one connection.
    static func written(_ configure: (inout SessionConfiguration) -> Void = { _ in }) -> SessionHarness {
        var h = SessionHarness(configure)
        h.push(1...10)
        h.connected()
        h.write()
        return h
    }

    @Test func rejectionSettlesOlderOnesAndResendsLaterOnesFirstInOrder() {
        var h = Self.written()
        h.push(11...12) // queued later: must go after the resends
        h.respond(.invalidToken, 4)
        #expect((1...3).allSatisfy { h.outcome($0) == accepted(.laterIdentifier) })
        #expect(h.outcome(4) == .rejected(.invalidToken))
        #expect(h.callbacks.map(\.code) == [.status(.invalidToken)])
        #expect(h.callbacks.map(\.tag) == [4])
        #expect(h.milestones.contains("transmissionError(8,4)"))
        #expect(h.closeRequests == 1, "the connection is closed after an error response")
        h.closed()
        #expect(h.connectRequests == 2, "reconnects at once for the resends")
        h.connected()
        let frames = h.write()
        #expect(frames.map(\.tag) == [5, 6, 7, 8, 9, 10, 11, 12])
        #expect(frames.first?.identifier == 1)
    }

    @Test func statusTenNamesTheLastSuccessAndOnlyWhatFollowsIsResent() {
        var h = Self.written()
        h.respond(.shutdown, 6)
        #expect((1...6).allSatisfy { h.outcome($0) == accepted(.shutdownIdentifier) })
        #expect(h.callbacks.isEmpty, "status 10 is not a failure of the named notification")
        #expect(h.milestones.contains("transmissionError(10,nil)"))
        h.closed()
        h.connected()
        #expect(h.write().map(\.tag) == [7, 8, 9, 10])
    }

    @Test func cacheMissReportsShortfallResendsTheCacheAndGivesEvictedOnesUnknownFate() {
        var h = Self.written { $0.cacheLength = 3 }
        h.respond(.invalidToken, 2)
        #expect(h.outcome(1) == accepted(.laterIdentifier))
        #expect(h.outcome(2) == .rejected(.invalidToken), "the real status goes in the outcome")
        #expect((3...7).allSatisfy { h.outcome($0) == .unknownFate(.evictedFromCache) })
        #expect((8...10).allSatisfy { h.outcome($0) == nil })
        #expect(h.milestones.contains("cacheTooSmall(6)"), "oldest cached id 8 - failing id 2")
        #expect(h.milestones.contains("transmissionError(8,nil)"), "Apple's code; no longer in the cache, so null (node-apn 1.2's README)")
        #expect(h.callbacks.map(\.code) == [.status(.unknown)])
        #expect(h.callbacks.map(\.tag) == [nil], "errorCallback(255, null) as node-apn 1.2 documented")
        #expect(h.session.cacheLength == 3 + 2 * 6, "autoAdjustCache grows by twice the shortfall")
        h.closed()
        h.connected()
        #expect(h.write().map(\.tag) == [8, 9, 10])
    }

    @Test func cacheGrowthIsCapped() {
        var h = Self.written { $0.cacheLength = 1; $0.maxCacheLength = 5 }
        h.respond(.invalidToken, 1)
        #expect(h.session.cacheLength == 5)
    }

    @Test func identifierZeroResendsTheWholeCacheMarkedPossiblyDuplicated() {
        var h = Self.written { $0.cacheLength = 4 }
        h.respond(.processingError, 0)
        #expect((1...6).allSatisfy { h.outcome($0) == .unknownFate(.unattributedError) })
        #expect(h.callbacks.map(\.code) == [.status(.unknown)])
        #expect(!h.milestones.contains { $0.hasPrefix("cacheTooSmall") }, "identifier 0 says nothing about the cache")
        h.closed()
        h.connected()
        #expect(h.write().map(\.tag) == [7, 8, 9, 10, -1], "with a marker to settle them soon")
        h.advance(3)
        #expect((7...10).allSatisfy { h.outcome($0) == acceptedTwice(.graceWindow) })
    }

    @Test(arguments: [9, 200, 254])
    func unknownStatusBytesReachTheCallerAsTheyCame(byte: UInt16) {
        var h = Self.written()
        h.respond(StatusCode(rawValue: byte), 3)
        #expect(h.outcome(3) == .rejected(StatusCode(rawValue: byte)))
        #expect(h.callbacks.map(\.code) == [.status(StatusCode(rawValue: byte))])
        #expect(h.milestones.contains("transmissionError(\(byte),3)"))
        #expect((4...10).allSatisfy { h.outcome($0) == nil }, "what followed is resent, as after any rejection")
    }

    @Test func anErrorResponseSplitAcrossReadsIsReassembled() {
        var h = Self.written()
        h.receive([8, 8, 0])
        #expect(h.outcomes.isEmpty)
        #expect(h.closeRequests == 0)
        h.receive([0, 0, 5])
        #expect(h.outcome(5) == .rejected(.invalidToken))
        #expect(h.closeRequests == 1)
    }

    @Test func frameNotYetTakenBySocketIsResentWithoutCountingARetry() {
        var h = SessionHarness()
        h.push(1...3, retryLimit: 0)
        h.connected()
        let frameLength = 13 + 32 + SessionHarness.payload(1).count
        h.write(frameLength * 2 + 5) // 1 and 2 whole, 3 partly
        h.respond(.invalidToken, 1)
        #expect(h.failureCode(2) == .retryLimitExceeded, "2 was written whole: resending it is a retry")
        #expect(h.callbacks.map(\.code) == [.status(.invalidToken), .status(.retryLimitExceeded)])
        #expect(h.milestones.contains("transmissionError(512,2)"))
        #expect(h.outcome(3) == nil, "3 never reached the gateway whole: resent whatever its retryLimit")
        h.closed()
        h.connected()
        #expect(h.write().map(\.tag) == [3])
    }

    @Test(arguments: [(1, 1, false), (1, 2, true), (2, 2, false), (0, 1, true)])
    func retryLimitAllowsThatManyResends(retryLimit: Int, resends: Int, fails: Bool) {
        var h = SessionHarness()
        h.push(1...1)
        h.push(2...2, retryLimit: retryLimit)
        h.connected()
        h.write()
        for round in 1...resends {
            // Each round rejects the notification written just before 2, so 2 is resent.
            h.respond(.invalidToken, round == 1 ? 1 : 0)
            h.closed()
            h.connected()
            h.write()
        }
        if fails {
            #expect(h.callbacks.contains { $0.code == .status(.retryLimitExceeded) && $0.tag == 2 })
            if resends == 1 {
                #expect(h.failureCode(2) == .retryLimitExceeded)
            } else {
                // The later rounds' identifier 0 says nothing of what the gateway took: the
                // copy written before may have been delivered.
                #expect(h.outcome(2) == .unknownFate(.unattributedError))
            }
        } else {
            #expect(h.outcome(2) == nil)
            h.advance(3)
            #expect(h.outcome(2)?.isAccepted == true)
        }
    }

    @Test func withoutBufferingNothingAfterARejectionIsResent() {
        var h = Self.written { $0.buffersNotifications = false }
        h.respond(.invalidToken, 8)
        #expect(h.outcome(8) == .rejected(.invalidToken))
        for tag in 9...10 {
            guard case .failed(let error)? = h.outcome(tag) else {
                Issue.record("\(tag) should have failed")
                continue
            }
            #expect(error.code == .notResent)
        }
        h.closed()
        #expect(h.connectRequests == 1, "nothing left to send: no reconnect")
    }

    @Test func bytesAfterTheFirstErrorResponseAreIgnored() {
        var h = Self.written()
        h.receive([8, 8, 0, 0, 0, 2, 8, 8, 0, 0, 0, 7])
        #expect(h.outcome(2) == .rejected(.invalidToken))
        #expect(h.outcome(7) == nil)
        #expect(h.duplicateOutcomes.isEmpty)
    }
}
