import APN
import Testing
import APNTestSupport
import APNTestTraits

/// Pacing after rejections (``AnswerPacing``): once an error response has shown how long the
/// gateway takes to answer and how many notifications a connection carries before a
/// rejection, a connection writes at most a window of notifications per answer span, so a
/// rejection makes the gateway discard about what the connection carried, not everything a
/// fast client wrote meanwhile.
@Suite("Gateway session: pacing after rejections", .threadPerTest)
struct SessionPacingTests {
    // MARK: the estimator

    @Test func nothingIsPacedBeforeARejectionWasSeen() {
        var pacing = AnswerPacing()
        #expect(pacing.window(connectedForNanos: 0) == nil)
        pacing.observe(answerNanos: 10_000_000, run: nil)
        #expect(pacing.window(connectedForNanos: 0) == nil, "a marker's answer measures time only")
        pacing.observe(answerNanos: 10_000_000, run: 1_499)
        #expect(pacing.window(connectedForNanos: 0) == 2_998)
    }

    @Test func theWindowIsTwiceTheTypicalRunAtLeastAThousandAndDoublesEachSpan() {
        var pacing = AnswerPacing()
        pacing.observe(answerNanos: 10_000_000, run: 3)
        #expect(pacing.window(connectedForNanos: 0) == AnswerPacing.minimumWindow)
        #expect(pacing.window(connectedForNanos: 9_999_999) == 1_000)
        #expect(pacing.window(connectedForNanos: 10_000_000) == 2_000)
        #expect(pacing.window(connectedForNanos: 35_000_000) == 8_000)
        #expect(pacing.window(connectedForNanos: 200_000_000) == nil, "twenty spans without a rejection: unpaced")
        #expect(pacing.nextDoubling(connectedAt: Timestamp(nanoseconds: 5), now: Timestamp(nanoseconds: 35_000_000))
            == Timestamp(nanoseconds: 40_000_005))
    }

    @Test func aShorterAnswerCountsAtOnceALongerOneByAnEighth() {
        var pacing = AnswerPacing()
        pacing.observe(answerNanos: 16_000_000, run: 1_000)
        pacing.observe(answerNanos: 8_000_000, run: nil)
        #expect(pacing.answerNanos == 8_000_000)
        pacing.observe(answerNanos: 808_000_000, run: nil)
        #expect(pacing.answerNanos == 108_000_000, "one slow answer (a backlog) moves it by an eighth")
        pacing.observe(answerNanos: 0, run: nil)
        #expect(pacing.answerNanos == 108_000_000, "a zero sample (a frozen clock) says nothing")
    }

    @Test func theTypicalRunMovesAQuarterOfTheWayToEachNewRun() {
        var pacing = AnswerPacing()
        pacing.observe(answerNanos: 1, run: 1_000)
        pacing.observe(answerNanos: 1, run: 3_000)
        #expect(pacing.typicalRun == 1_500)
        pacing.observe(answerNanos: 1, run: 0)
        #expect(pacing.typicalRun == 1_125)
    }

    // MARK: the session

    /// 10,000 pushed and written on the first connection; 10 ms later the gateway rejects
    /// the 1,500th.
    static func afterARejection(_ configure: (inout SessionConfiguration) -> Void = { _ in }) -> SessionHarness {
        var h = SessionHarness(configure)
        h.push(1...10_000)
        h.connected()
        var first = 0
        while !h.session.outboundBytes.isEmpty { first += h.write().count }
        #expect(first == 10_000, "nothing is paced before a rejection")
        h.now = h.now + .milliseconds(10)
        h.respond(.invalidToken, 1_500)
        #expect(h.outcome(1_500) == .rejected(.invalidToken))
        h.closed()
        return h
    }

    static func writeAll(_ h: inout SessionHarness) -> [Int] {
        var tags: [Int] = []
        while !h.session.outboundBytes.isEmpty { tags += h.write().map(\.tag) }
        return tags
    }

    @Test func afterARejectionAConnectionWritesTwiceTheRunPerAnswerSpan() {
        var h = Self.afterARejection()
        h.connected()
        let connectedAt = h.now
        let burst = Self.writeAll(&h)
        #expect(burst == Array(1_501...4_498), "2 × 1,499 written, then the window is full")
        #expect(h.timer == connectedAt + .milliseconds(10), "woken when the span ends")
        // One answer span later nothing was rejected: what was written is past its answer
        // and the window has doubled.
        h.advance(0.010)
        let rest = Self.writeAll(&h)
        #expect(rest == Array(4_499...10_000))
        h.advance(3)
        #expect(h.outcomes.count == 10_000)
        #expect((1_501...10_000).allSatisfy { h.outcome($0) == accepted(.graceWindow) })
        #expect(h.duplicateOutcomes.isEmpty)
    }

    @Test func aRejectionWithinTheWindowThrowsAwayOnlyTheWindow() {
        var h = Self.afterARejection()
        h.connected()
        #expect(Self.writeAll(&h).count == 2_998)
        // The next bad token is the 1,000th of this connection: the gateway discards the
        // 1,998 written after it, not the 8,500 the unpaced connection would have written.
        h.now = h.now + .milliseconds(10)
        h.respond(.invalidToken, 1_000)
        #expect(h.outcome(2_500) == .rejected(.invalidToken))
        #expect(h.session.resendCount == 8_500 + 1_998)
    }

    @Test func notificationsPushedOneByOneAreHeldToTheWindowToo() {
        var h = SessionHarness()
        h.push(1...2_000)
        h.connected()
        _ = Self.writeAll(&h)
        h.now = h.now + .milliseconds(10)
        h.respond(.invalidToken, 1_000)
        h.closed()
        h.connected()
        let connectedAt = h.now
        var written = Self.writeAll(&h)
        #expect(written == Array(1_001...2_000))
        // Nothing is queued now: each push would go straight to the outbound buffer but for
        // the window, 2 × 999 a span.
        for n in 2_001...5_000 {
            h.push(n...n)
            written += Self.writeAll(&h)
        }
        #expect(written.count == 1_998)
        #expect(h.timer == connectedAt + .milliseconds(10))
        h.advance(0.010)
        written += Self.writeAll(&h)
        #expect(written == Array(1_001...5_000), "in order, none lost")
    }

    @Test func pacingCanBeTurnedOff() {
        var h = Self.afterARejection { $0.pacesAfterRejections = false }
        h.connected()
        #expect(Self.writeAll(&h) == Array(1_501...10_000))
    }
}
