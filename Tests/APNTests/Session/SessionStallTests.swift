import APN
import Testing
import APNTestSupport
import APNTestTraits

/// A gateway that stops reading (issue #25): its TCP acknowledges what fits in its kernel's
/// buffer, then nothing. What it acknowledged may never be read, so while acknowledgements
/// do not progress the grace window accepts nothing newer, after a stall (500 ms here)
/// nothing at all — only a marker's answer — and a write stall ends the connection as a
/// failed attempt.
@Suite("Gateway session: a peer that stops reading", .threadPerTest)
struct SessionStallTests {
    static func frameLength(_ tag: Int) -> Int64 { Int64(13 + 32 + SessionHarness.payload(tag).count) }

    static func tracking(_ configure: (inout SessionConfiguration) -> Void = { _ in }) -> SessionHarness {
        SessionHarness {
            $0.tracksAcknowledgements = true
            $0.settleWindow = .milliseconds(100)
            configure(&$0)
        }
    }

    /// Time passes; the driver reports `acknowledged` bytes (as it does before each tick),
    /// then the timer fires.
    static func step(_ h: inout SessionHarness, _ seconds: Double, acknowledged: Int64) {
        h.now = h.now + .milliseconds(Int64(seconds * 1000))
        h.acknowledge(acknowledged)
        h.advance(0)
    }

    /// Pushes `tags`, writes them, and has the peer acknowledge only the first frame, then
    /// nothing for 600 ms: a stall, whose marker has been written.
    static func stalledAfterTheFirstFrame(_ tags: ClosedRange<Int>) -> SessionHarness {
        var h = tracking()
        h.push(tags)
        h.connected()
        h.write()
        let first = frameLength(1)
        h.acknowledge(first)
        step(&h, 0.1, acknowledged: first)
        step(&h, 0.5, acknowledged: first)  // a stall: a marker is queued
        #expect(h.write().map(\.tag) == [-1])
        return h
    }

    @Test func nothingIsAcceptedByTimeWhileThePeerAcknowledgesNothingMore() {
        var h = Self.tracking()
        h.push(1...3)
        h.connected()
        h.write()
        let first = Self.frameLength(1)
        h.acknowledge(first)  // the first frame reached the peer's TCP, then nothing more
        Self.step(&h, 0.1, acknowledged: first)
        Self.step(&h, 0.3, acknowledged: first)
        #expect(h.session.outboundBytes.isEmpty, "no marker yet: 400 ms is a hiccup, not a stall")
        Self.step(&h, 2.2, acknowledged: first)
        #expect(h.outcomes.isEmpty, "its grace window ended after the peer stopped acknowledging: it may sit unread")
        #expect(h.write().map(\.tag) == [-1], "a stall: a marker asks the gateway to settle them")
        // The gateway closes with a reset, never having read them.
        h.closed(APNError(code: .connectionFailed, message: "connection reset by peer"))
        #expect(h.outcomes.isEmpty, "nothing accepted at the close either")
        #expect(h.connectRequests == 2, "reconnects at once: the gateway, not a stall timeout, ended it")
        h.connected()
        #expect(h.write().map(\.tag) == [1, 2, 3, -1], "all three resent, marked, with a marker")
        h.acknowledge()
        h.respond(.missingDeviceToken, 4)
        #expect((1...3).allSatisfy { h.outcome($0) == acceptedTwice(.flush) })
        #expect(h.duplicateOutcomes.isEmpty)
    }

    @Test func aHiccupShorterThanTheStallDetectionChangesNothing() {
        var h = Self.tracking()
        h.push(1...2)
        h.connected()
        h.write()
        let first = Self.frameLength(1)
        h.acknowledge(first)
        Self.step(&h, 0.2, acknowledged: first)
        Self.step(&h, 0.2, acknowledged: first)  // 400 ms without progress: below 500 ms
        Self.step(&h, 0.1, acknowledged: h.takenBytes)  // then everything
        #expect(h.session.outboundBytes.isEmpty, "no marker after a hiccup")
        Self.step(&h, 2.5, acknowledged: h.takenBytes)
        #expect(h.outcome(1) == accepted(.graceWindow) && h.outcome(2) == accepted(.graceWindow))
    }

    @Test func whatPassedItsWindowBeforeThePeerStoppedIsStillAccepted() {
        var h = Self.tracking()
        h.push(1...1)
        h.connected()
        h.write()
        h.acknowledge()  // its window ends at 2.5 s
        h.push(2...2)
        h.write()
        let first = Self.frameLength(1)
        // The first report without progress comes at 2.7 s, the (late) tick at 2.8 s.
        h.now = h.now + .milliseconds(2_700)
        h.acknowledge(first)
        Self.step(&h, 0.1, acknowledged: first)
        #expect(h.outcome(1) == accepted(.graceWindow), "its window ended while the peer still acknowledged")
        #expect(h.outcome(2) == nil)
        h.closed()
        h.connected()
        #expect(h.write().map(\.tag) == [2, -1])
    }

    @Test func afterAStallTheMarkersAnswerAcceptsWhatCameBefore() {
        var h = Self.stalledAfterTheFirstFrame(1...3)
        // The gateway reads again: everything, the marker too, is acknowledged.
        Self.step(&h, 3, acknowledged: h.takenBytes)
        #expect(h.outcomes.isEmpty, "after a stall, the grace window accepts nothing on this connection")
        h.respond(.missingDeviceToken, 4)
        #expect((1...3).allSatisfy { h.outcome($0) == accepted(.flush) })
    }

    @Test func anUnansweredMarkerAfterAStallEndsTheConnectionAndResendsWhatWasWritten() {
        var h = Self.stalledAfterTheFirstFrame(1...2)
        Self.step(&h, 0.1, acknowledged: h.takenBytes)
        Self.step(&h, 2.4, acknowledged: h.takenBytes)
        #expect(h.closeRequests == 0, "the marker's grace window runs from its acknowledgement")
        Self.step(&h, 0.1, acknowledged: h.takenBytes)
        #expect(h.closeRequests == 1, "no answer a grace window after the gateway took the marker")
        #expect(h.outcomes.isEmpty)
        h.closed()
        h.advance(1)  // a failed attempt: the backoff first
        h.connected()
        #expect(h.write().map(\.tag) == [1, 2, -1])
    }

    @Test func underTheReportPolicyAStalledConnectionLeavesItsWrittenOnesOfUnknownFate() {
        var h = Self.tracking { $0.silentClosePolicy = .reportUnconfirmed }
        h.push(1...2)
        h.connected()
        h.write()
        h.acknowledge()  // all acknowledged by TCP …
        h.push(3...3)
        h.write()
        let two = Self.frameLength(1) + Self.frameLength(2)
        Self.step(&h, 0.1, acknowledged: two)  // … but the third never is
        Self.step(&h, 0.5, acknowledged: two)
        Self.step(&h, 3, acknowledged: two)
        h.closed()
        #expect((1...3).allSatisfy { h.outcome($0) == .unknownFate(.unconfirmedAtClose) })
    }
}
