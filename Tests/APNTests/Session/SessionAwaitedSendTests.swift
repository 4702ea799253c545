import APN
import APNWire
import Testing
import APNTestSupport
import APNTestTraits

/// An awaited send (`Connection.send`) encoded with nothing queued behind it is followed
/// by a confirmation marker, whose answer settles it in a round trip (#27 item 7).
@Suite("Gateway session: an awaited send is confirmed by a marker", .threadPerTest)
struct SessionAwaitedSendTests {
    /// Pushes notification `tag` as `Connection.send` does.
    static func pushAwaited(_ h: inout SessionHarness, _ tag: Int) {
        h.session.push(
            SessionHarness.handle(tag), token: SessionHarness.token(tag), payload: SessionHarness.payload(tag),
            awaited: true, now: h.now)
        h.drain()
    }

    /// Opens a connection with nothing to send (as `minConnections` does), so the next
    /// push is encoded at once.
    static func openIdle(_ h: inout SessionHarness) {
        h.session.open(now: h.now)
        h.drain()
        h.connected()
    }

    @Test("alone on a connected socket: its frame, then the 13-byte marker with the next identifier")
    func aloneOnAnOpenSocket() {
        var h = SessionHarness()
        Self.openIdle(&h)
        Self.pushAwaited(&h, 1)
        let bytes = h.session.outboundBytes.readableBytesArray
        #expect(Array(bytes.suffix(13)) == hex("01 00000002 00000000 0000 0000"), "command 1, identifier 2, empty token and payload")
        #expect(h.write().map(\.tag) == [1, -1])
        h.respond(.missingDeviceToken, 2)
        #expect(h.outcome(1) == accepted(.flush))
        #expect(h.callbacks.isEmpty, "the marker is not a notification")
        #expect(!h.milestones.contains { $0.hasPrefix("flushed") }, "an automatic marker: no flush event")
        #expect(h.closeRequests == 1, "the gateway closes after its answer; so does the session")
    }

    @Test("pushed before the connection opened: the marker follows it once connected")
    func aloneBeforeConnecting() {
        var h = SessionHarness()
        Self.pushAwaited(&h, 1)
        h.connected()
        #expect(h.write().map(\.tag) == [1, -1])
        h.respond(.missingDeviceToken, 2)
        #expect(h.outcome(1) == accepted(.flush))
    }

    @Test("behind others: they are all settled by its marker")
    func behindOthers() {
        var h = SessionHarness()
        h.push(1...2)
        Self.pushAwaited(&h, 3)
        h.connected()
        #expect(h.write().map(\.tag) == [1, 2, 3, -1])
        h.respond(.missingDeviceToken, 4)
        #expect((1...3).allSatisfy { h.outcome($0) == accepted(.flush) })
    }

    @Test("with another queued behind it: no marker; both wait for the grace window")
    func othersQueuedBehind() {
        var h = SessionHarness()
        Self.pushAwaited(&h, 1)
        h.push(2...2)
        h.connected()
        #expect(h.write().map(\.tag) == [1, 2], "no marker")
        h.acknowledge()
        h.advance(2.5)
        #expect(h.outcome(1) == accepted(.graceWindow))
        #expect(h.outcome(2) == accepted(.graceWindow))
    }

    @Test("rejected: the error response names it; the marker after it is dropped, never resent")
    func rejected() {
        var h = SessionHarness()
        Self.openIdle(&h)
        Self.pushAwaited(&h, 1)
        #expect(h.write().map(\.tag) == [1, -1])
        h.respond(.invalidToken, 1)
        #expect(h.outcome(1) == .rejected(.invalidToken))
        h.closed()
        h.connected()
        #expect(h.write().isEmpty, "nothing is written again")
        #expect(h.outcomes.count == 1)
    }

    @Test("a second awaited send while the first's marker is unanswered gets its own on the next connection")
    func oneAfterAnother() {
        var h = SessionHarness()
        Self.openIdle(&h)
        Self.pushAwaited(&h, 1)
        #expect(h.write().map(\.tag) == [1, -1])
        Self.pushAwaited(&h, 2)
        #expect(h.write().isEmpty, "nothing after an unanswered marker")
        h.respond(.missingDeviceToken, 2)
        #expect(h.outcome(1) == accepted(.flush))
        h.closed()
        h.connected()
        #expect(h.write().map(\.tag) == [2, -1])
        h.respond(.missingDeviceToken, 2)
        #expect(h.outcome(2) == accepted(.flush))
    }

    @Test("command 0 has no identifiers: no marker, the grace window")
    func simpleFormat() {
        var h = SessionHarness { $0.command = .simple }
        Self.openIdle(&h)
        Self.pushAwaited(&h, 1)
        #expect(h.write().map(\.tag) == [1])
        h.acknowledge()
        h.advance(2.5)
        #expect(h.outcome(1) == accepted(.graceWindow))
    }
}
