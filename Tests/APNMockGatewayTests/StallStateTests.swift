import APNWire
import APNGatewayServer
@testable import APNMockGateway
import APNTestSupport
import APNTestTraits
import Testing

/// A stalled connection's decisions, driven by explicit instants (no sockets, no waiting):
/// asked again before the deadline — as a waker or any early look does — it stays stalled
/// and judges nothing; at the deadline it ends as `StallEnd` says; `never` never ends.
@Suite(.threadPerTest) struct StallStateTests {
    let start = ContinuousClock.now

    /// A connection whose stall strikes at the 2nd accepted notification, its decoder
    /// holding five, after the first look at `start`.
    private func stalled(_ end: MockGateway.Faults.StallEnd) throws
        -> (connection: ScriptedConnection, decoder: GatewayDecoder, shared: SharedState, first: ReadDirective)
    {
        var faults = MockGateway.Faults()
        faults.stallReads(afterAccepting: 2, for: .seconds(10), then: end)
        let shared = try SharedState(Ledger(faults: faults, retention: .standard))
        var connection = ScriptedConnection(shared: shared)
        var decoder = GatewayDecoder()
        decoder.feed(enhancedFrames(1...5))
        let first = connection.consume(&decoder, now: start)
        return (connection, decoder, shared, first)
    }

    @Test(arguments: [MockGateway.Faults.StallEnd.resume, .close, .reset])
    func anEarlyLookStaysStalledUntilTheDeadline(end: MockGateway.Faults.StallEnd) throws {
        let setup = try stalled(end)
        var (connection, decoder) = (setup.connection, setup.decoder)
        let (shared, first) = (setup.shared, setup.first)
        #expect(pause(first) == start + .seconds(10))
        #expect(shared.recordCount == 2)
        for early in [Duration.zero, .seconds(5), .seconds(10) - .nanoseconds(1)] {
            #expect(pause(connection.consume(&decoder, now: start + early)) == start + .seconds(10))
        }
        #expect(shared.recordCount == 2, "nothing judged while stalled")

        let after = connection.consume(&decoder, now: start + .seconds(10))
        switch end {
        case .resume:
            guard case .read = after else { Issue.record("\(after)"); return }
            #expect(shared.recordCount == 5, "the rest of the decoder is judged")
            guard case .read = connection.consume(&decoder, now: start + .seconds(11)) else {
                Issue.record("stalled again")
                return
            }
        case .close:
            guard case .end(.close) = after else { Issue.record("\(after)"); return }
            #expect(shared.recordCount == 2, "the rest is thrown away")
        case .reset:
            guard case .end(.reset) = after else { Issue.record("\(after)"); return }
            #expect(shared.recordCount == 2, "the rest is thrown away")
        case .never:
            Issue.record("not an argument")
        }
    }

    @Test func neverEndsWhateverWakesIt() throws {
        let setup = try stalled(.never)
        var (connection, decoder) = (setup.connection, setup.decoder)
        let (shared, first) = (setup.shared, setup.first)
        guard case .pause(until: nil) = first else { Issue.record("\(first)"); return }
        for later in [Duration.zero, .seconds(10), .seconds(86_400 * 365)] {
            let directive = connection.consume(&decoder, now: start + later)
            guard case .pause(until: nil) = directive else { Issue.record("\(directive)"); return }
        }
        #expect(shared.recordCount == 2)
    }

    @Test func aZeroDurationEndsAtTheNextLook() throws {
        var faults = MockGateway.Faults()
        faults.stallReads(afterAccepting: 1, for: .zero, then: .close)
        let shared = try SharedState(Ledger(faults: faults, retention: .standard))
        var connection = ScriptedConnection(shared: shared)
        var decoder = GatewayDecoder()
        decoder.feed(enhancedFrames(1...3))
        #expect(pause(connection.consume(&decoder, now: start)) == start)
        guard case .end(.close) = connection.consume(&decoder, now: start) else {
            Issue.record("not closed")
            return
        }
        #expect(shared.recordCount == 1)
    }

    /// The instant a pause lasts until; `nil` for anything else (or a pause without one).
    private func pause(_ directive: ReadDirective) -> ContinuousClock.Instant? {
        guard case .pause(let until) = directive else { return nil }
        return until
    }
}
