import APN
import Testing
import APNTestSupport
import APNTestTraits

/// `connected(openSockets:)` and `disconnected(openSockets:)` count the sockets as their
/// events said, in order (`apn demo` once printed `connected(openSockets: 0)`).
@Suite("Connection pool: open socket counts", .threadPerTest)
struct PoolOpenSocketsTests {
    /// The sockets' connect and disconnect milestones only.
    static func socketEvents(_ h: PoolHarness) -> [String] {
        h.events.filter { $0.hasPrefix("connected(") || $0.hasPrefix("disconnected(") }
    }

    @Test("a socket reopened for minConnections that meets a shutdown as it connects counts as open until it closes")
    func connectedThenClosedInOneInput() {
        let h = PoolHarness()
        h.push(1...1)
        h.opened(0)
        #expect(h.write(0) == [1])
        h.flush()
        #expect(h.write(0) == [-1])
        // The marker's answer settles 1 and closes the socket; minConnections reopens it.
        h.respond(0, .missingDeviceToken, 2)
        #expect(h.outcome(1) == accepted(.flush))
        #expect(h.closes == [0])
        #expect(h.connects == [0, 0])
        h.shutdown()
        // Connected with nothing to send and a shutdown asked: it closes in the same input.
        h.opened(0)
        #expect(h.closes == [0, 0])
        #expect(Self.socketEvents(h) == ["connected(1)", "disconnected(0)", "connected(1)", "disconnected(0)"])
    }

    @Test("two sockets count 1, 2, then down to 0 as they close")
    func twoSockets() {
        let h = PoolHarness.twoSocketsWritten()
        h.closed(0)
        h.closed(1)
        #expect(Array(Self.socketEvents(h).prefix(4)) == ["connected(1)", "connected(2)", "disconnected(1)", "disconnected(0)"])
    }
}
