import APN
import Testing
import APNTestSupport
import APNTestTraits

/// The resend cache kept by fate (the default, `cacheLength` nil): nothing evicted, memory
/// bounded with backpressure and a confirmation marker; rolling confirmation; and what the
/// grace window may accept (acknowledged bytes only, nothing while an answer arrives).
@Suite("Gateway session: a resend cache kept by fate", .threadPerTest)
struct SessionFateCacheTests {
    // MARK: nothing evicted

    @Test func aLateErrorResponseFindsEveryWrittenNotificationStillResendable() {
        var h = SessionHarness()
        h.push(1...2_000)
        h.connected()
        while !h.session.outboundBytes.isEmpty { h.write() }
        // The gateway answers only now, naming the 501st, with 1,499 written after it.
        h.respond(.invalidToken, 501)
        #expect(h.outcome(501) == .rejected(.invalidToken))
        #expect((1...500).allSatisfy { h.outcome($0) == accepted(.laterIdentifier) })
        #expect(!h.events.contains { $0.hasPrefix("cacheTooSmall") })
        #expect(h.callbacks.map(\.code) == [.status(.invalidToken)] && h.callbacks.map(\.tag) == [501])
        h.closed()
        h.connected()
        var resent: [Int] = []
        while !h.session.outboundBytes.isEmpty { resent += h.write().map(\.tag) }
        #expect(resent == Array(502...2_000), "all 1,499 resent, in order, none of unknown fate")
        h.advance(3)
        #expect(h.outcomes.count == 2_000)
        #expect((502...2_000).allSatisfy { h.outcome($0) == accepted(.graceWindow) }, "not possibly duplicated: the gateway discarded them")
        #expect(h.session.cacheMemory == 0, "everything settled, nothing held")
    }

    @Test func cacheMemoryCountsASharedPayloadOnceAndReturnsToZero() {
        var h = SessionHarness()
        let payload = SessionHarness.payload(1)
        for n in 1...10 {
            h.session.push(SessionHarness.handle(n), token: SessionHarness.token(n), payload: payload, now: h.now)
        }
        h.connected()
        h.write()
        let shared = 10 * GatewaySession<SessionHarness.Tag>.cacheCharge(tokenCount: 32, payloadCount: 0) + payload.count
        #expect(h.session.cacheMemory == shared, "one payload for ten notifications")
        h.push(11...12) // a payload each
        h.write()
        let distinct = shared + 2 * GatewaySession<SessionHarness.Tag>.cacheCharge(tokenCount: 32, payloadCount: SessionHarness.payload(11).count)
        #expect(h.session.cacheMemory == distinct)
        h.advance(3)
        #expect(h.session.cacheMemory == 0)
    }

    // MARK: a full cache

    static func small(_ configure: (inout SessionConfiguration) -> Void = { _ in }) -> SessionHarness {
        SessionHarness {
            // Room for three written notifications of the harness's payload size.
            $0.cacheMemoryLimit = 3 * GatewaySession<SessionHarness.Tag>.cacheCharge(tokenCount: 32, payloadCount: 24)
            configure(&$0)
        }
    }

    @Test func aFullCacheStopsWritingOnceAndAsksTheGatewayToConfirm() {
        var h = Self.small()
        h.push(1...10)
        h.connected()
        let first = h.write()
        #expect(first.map(\.tag) == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], "encoded before any was written")
        h.push(11...20)
        // Written notifications now hold more than the limit: no more is encoded but a
        // marker, and the cache is never emptied by eviction.
        #expect(h.write().map(\.tag) == [-1], "a confirmation marker, then nothing")
        #expect(h.events.filter { $0.hasPrefix("cacheFull") }.count == 1)
        #expect(h.outcomes.isEmpty, "nothing evicted, nothing settled yet")
        // The gateway answers the marker (status 8 for its empty token): all ten confirmed.
        h.respond(.missingDeviceToken, 11)
        #expect((1...10).allSatisfy { h.outcome($0) == accepted(.flush) })
        #expect(!h.events.contains { $0.hasPrefix("flushed") }, "nobody asked for this flush")
        #expect(h.closeRequests == 1)
        h.closed()
        #expect(h.connectRequests == 2, "a fresh connection for the rest")
        h.connected()
        #expect(h.write().prefix(3).map(\.tag) == [11, 12, 13])
        h.push(21...21)
        #expect(h.events.filter { $0.hasPrefix("cacheFull") }.count == 1, "reported once per session")
    }

    @Test func anUnansweredMarkerGivesWayToTheGraceWindow() {
        var h = Self.small()
        h.push(1...4)
        h.connected()
        h.write()
        h.push(5...6)
        #expect(h.write().map(\.tag) == [-1])
        h.advance(3) // the gateway ignored the marker: time settles what it wrote
        #expect((1...4).allSatisfy { h.outcome($0) == accepted(.graceWindow) })
        #expect(h.write().map(\.tag) == [5, 6], "room again: writing resumes on the same connection")
        #expect(h.closeRequests == 0)
    }

    @Test func command0HasNoMarkerAndWaitsForTheGraceWindow() {
        var h = Self.small { $0.command = .simple }
        h.push(1...4)
        h.connected()
        h.write()
        h.push(5...6)
        #expect(h.session.outboundBytes.isEmpty, "full: nothing encoded, and no marker it could not answer")
        h.advance(3)
        #expect(h.outcome(4) == accepted(.graceWindow))
        #expect(h.write().map(\.tag) == [5, 6])
    }

    @Test func aCountBoundedCacheNeverStopsWritingForMemory() {
        var h = SessionHarness {
            $0.cacheLength = 2
            $0.cacheMemoryLimit = 1
        }
        h.push(1...10)
        h.connected()
        #expect(h.write().count == 10)
        h.push(11...12)
        #expect(h.write().map(\.tag) == [11, 12], "node-apn's FIFO: evicts instead")
        #expect(!h.events.contains { $0.hasPrefix("cacheFull") })
    }

    // MARK: rolling confirmation

    @Test func rollingConfirmationWritesAMarkerEveryNAndReconnects() {
        var h = SessionHarness { $0.confirmationInterval = 3 }
        h.push(1...7)
        h.connected()
        #expect(h.write().map(\.tag) == [1, 2, 3, -1], "a marker after three; nothing after it")
        h.respond(.missingDeviceToken, 4)
        #expect((1...3).allSatisfy { h.outcome($0) == accepted(.flush) })
        h.closed()
        h.connected()
        #expect(h.write().map(\.tag) == [4, 5, 6, -1])
        // The gateway drops the connection without a word: at most three are unconfirmed,
        // and the marker is not resent.
        h.closed()
        h.connected()
        #expect(h.write().map(\.tag) == [4, 5, 6, -1])
        h.respond(.missingDeviceToken, 4)
        #expect((4...6).allSatisfy { h.outcome($0) == .accepted(Acceptance(evidence: .flush, possiblyDuplicated: true)) })
        h.closed()
        h.connected()
        #expect(h.write().map(\.tag) == [7])
        #expect(!h.events.contains { $0.hasPrefix("flushed") })
    }

    @Test func aCallersFlushStillAnswersAlongsideRollingConfirmation() {
        var h = SessionHarness { $0.confirmationInterval = 100 }
        h.push(1...2)
        h.session.flush(now: h.now)
        h.drain()
        h.connected()
        #expect(h.write().map(\.tag) == [1, 2, -1])
        h.respond(.missingDeviceToken, 3)
        #expect(h.milestones.contains("flushed(true)"))
    }

    // MARK: acknowledgements

    static func tracking(_ configure: (inout SessionConfiguration) -> Void = { _ in }) -> SessionHarness {
        SessionHarness {
            $0.tracksAcknowledgements = true
            configure(&$0)
        }
    }

    @Test func theGraceWindowAcceptsOnlyWhatThePeerAcknowledged() {
        var h = Self.tracking()
        h.push(1...3)
        h.connected()
        h.write()
        let firstFrame = Int64(13 + 32 + SessionHarness.payload(1).count)
        h.acknowledge(firstFrame) // only the first frame reached the peer
        h.advance(3)
        #expect(h.outcome(1) == accepted(.graceWindow))
        #expect(h.outcome(2) == nil && h.outcome(3) == nil, "still in the kernel's send queue: never accepted by time")
        let waiting = h.session.awaitsAcknowledgement
        #expect(waiting, "the driver should ask the socket again")
        #expect(h.timer == nil || h.timer! > h.now, "no timer spins meanwhile")
        h.acknowledge()
        let stillWaiting = h.session.awaitsAcknowledgement
        #expect(!stillWaiting)
        h.advance(2.4)
        #expect(h.outcome(3) == nil, "the gateway has had it only since the acknowledgement: its grace window starts there")
        h.advance(0.1)
        #expect(h.outcome(2) == accepted(.graceWindow) && h.outcome(3) == accepted(.graceWindow))
    }

    @Test func aConnectionAbandonedWithUnacknowledgedBytesResendsThemMarked() {
        var h = Self.tracking { $0.idleTimeout = .seconds(10) }
        h.push(1...3)
        h.connected()
        h.write()
        h.acknowledge(0)
        h.advance(3)
        h.acknowledge(0) // no progress since: the peer stopped reading
        #expect(h.outcomes.isEmpty)
        h.advance(10)
        h.acknowledge(0)
        #expect(h.milestones.contains("timeout") && h.milestones.contains { $0.hasPrefix("socketError") })
        #expect(h.closeRequests == 1)
        h.closed()
        h.advance(1) // a stall counts as a failed attempt: the backoff first
        h.connected()
        #expect(h.write().map(\.tag) == [1, 2, 3, -1], "resent, with a marker to settle them soon")
        h.acknowledge()
        h.respond(.missingDeviceToken, 4)
        #expect((1...3).allSatisfy { h.outcome($0) == acceptedTwice(.flush) })
    }

    @Test func underTheReportPolicyUnacknowledgedOnesAtACloseAreOfUnknownFateNeverAccepted() {
        var h = Self.tracking { $0.silentClosePolicy = .reportUnconfirmed }
        h.push(1...2)
        h.connected()
        h.write()
        h.acknowledge(Int64(13 + 32 + SessionHarness.payload(1).count))
        h.advance(3)
        h.closed()
        #expect(h.outcome(1) == accepted(.graceWindow))
        #expect(h.outcome(2) == .unknownFate(.unconfirmedAtClose))
    }

    @Test func shutdownWaitsForTheAcknowledgementBeforeClosing() {
        var h = Self.tracking()
        h.push(1...1)
        h.connected()
        h.write()
        h.session.shutdown(now: h.now)
        h.drain()
        h.advance(3)
        #expect(h.closeRequests == 0, "closing now could lose a notification still in the send queue")
        h.acknowledge()
        h.advance(2.5) // a grace window after the gateway received it
        #expect(h.outcome(1) == accepted(.graceWindow))
        #expect(h.closeRequests == 1)
    }

    // MARK: a partial error response

    @Test func aPartialErrorResponseHoldsTheGraceWindowOpen() {
        var h = SessionHarness()
        h.push(1...5)
        h.connected()
        h.write()
        h.advance(2)
        h.receive([0x08, 0x08]) // the first 2 of 6 bytes, then the gateway is slow
        h.advance(1)
        #expect(h.outcomes.isEmpty, "the answer may name any of them: nothing accepted by time")
        h.receive([0x00, 0x00])
        h.advance(1)
        #expect(h.outcomes.isEmpty)
        h.receive([0x00, 0x03])
        #expect(h.outcome(3) == .rejected(.invalidToken))
        #expect(h.outcome(2) == accepted(.laterIdentifier))
        h.closed()
        h.connected()
        #expect(h.write().map(\.tag) == [4, 5], "resent, not accepted by a window that had passed")
    }

    @Test func aPartialErrorResponseThatNeverCompletesIsALostConnection() {
        var h = SessionHarness { $0.silentClosePolicy = .reportUnconfirmed }
        h.push(1...2)
        h.connected()
        h.write()
        h.receive([0x08, 0x08, 0x00])
        h.advance(2.4)
        #expect(h.closeRequests == 0)
        h.advance(0.2) // a whole grace window with nothing more
        #expect(h.milestones.contains("socketError(malformedResponse)"))
        #expect(h.closeRequests == 1)
        #expect(h.outcome(1) == .unknownFate(.unconfirmedAtClose), "never accepted: the answer may have named it")
        #expect(h.outcome(2) == .unknownFate(.unconfirmedAtClose))
    }

    // MARK: identifiers that cannot be placed

    @Test func anIdentifierNeverWrittenHereIsUnattributable() {
        var h = SessionHarness()
        h.push(1...200)
        h.connected()
        h.write()
        h.respond(.invalidToken, 0xDEAD_BEEF)
        #expect(!h.events.contains { $0.hasPrefix("cacheTooSmall") }, "not older than the cache: never written")
        #expect(h.callbacks.map(\.code) == [.status(.unknown)] && h.callbacks.map(\.tag) == [nil])
        h.closed()
        h.connected()
        #expect(h.write().count == 201, "all 200, and a marker to settle them")
        h.advance(3)
        #expect((1...200).allSatisfy { h.outcome($0) == acceptedTwice(.graceWindow) }, "each resent, each marked")
    }

    @Test func anIdentifierAlreadySettledByTheGraceWindowProvesTheRestWasDiscarded() {
        var h = SessionHarness()
        h.push(1...3)
        h.connected()
        h.write()
        h.advance(3) // accepted by a grace window shorter than the gateway's answer took
        h.push(4...6)
        h.write()
        h.respond(.invalidToken, 2)
        #expect(!h.events.contains { $0.hasPrefix("cacheTooSmall") }, "nothing was evicted: the grace window was too short")
        #expect(h.milestones.contains("graceWindowTooShort(2)"), "2 and 3 were reported accepted, wrongly: said so")
        #expect(h.milestones.contains("transmissionError(8,nil)"))
        h.closed()
        h.connected()
        #expect(h.write().map(\.tag) == [4, 5, 6])
        h.advance(3)
        #expect((4...6).allSatisfy { h.outcome($0) == accepted(.graceWindow) }, "written after the named one: discarded, so not duplicated")
    }
}
