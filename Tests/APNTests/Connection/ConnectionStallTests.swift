import APN
import APNMockGateway
import Testing
import APNTestSupport
import APNTestTraits

/// A gateway that stops reading after 1,000 notifications (issue #25). Its TCP goes on
/// acknowledging what fits in its kernel's buffer, which it never reads: before the fix
/// those were accepted when the grace window passed during the stall and lost when the
/// gateway closed (1,171 of 100,000), and a gateway that never read again held the
/// connection for its idle timeout (an hour).
@Suite("Connection: a gateway that stops reading", .threadPerTest, .timeLimit(.minutes(5)))
struct ConnectionStallTests {
    static let count = 100_000

    @Test(
        "stalled longer than the grace window, then closed or reset: nothing accepted that it did not record",
        arguments: [MockGateway.Faults.StallEnd.close, .reset])
    func stallThenEnd(end: MockGateway.Faults.StallEnd) async throws {
        var faults = MockGateway.Faults()
        faults.stallReads(afterAccepting: 1_000, for: .seconds(4), then: end)
        let fixture = try GatewayFixture(faults: faults)
        let (log, connection) = fixture.loggedConnection { options in
            ConnectionRemoteGatewayTests.bulk(&options)
            options.shutdownGraceWindow = .seconds(2)  // shorter than the stall
        }
        connection.push(note(0), to: (1...Self.count).map(device)) { index, outcome in log.outcome(index + 1)(outcome) }
        let report = await connection.shutdown()
        DeliveryCheck(log: log, mock: fixture.mock, count: Self.count).expectTruthful()
        #expect(report.accepted == Self.count, "the resend policy resends what the stalled connection left unconfirmed")
        #expect(RecordCounts(fixture.mock).counts.count == Self.count, "every one arrived")
        #expect(report.possiblyDuplicated > 0, "what the gateway's kernel held went again, marked")
    }

    @Test("a gateway that never reads again: the write stall timeout ends the connection, the send finishes")
    func stallForever() async throws {
        var faults = MockGateway.Faults()
        faults.stallReads(afterAccepting: 1_000, for: .seconds(1), then: .never)
        let fixture = try GatewayFixture(faults: faults)
        let (log, connection) = fixture.loggedConnection { options in
            ConnectionRemoteGatewayTests.bulk(&options)
            options.writeStallTimeout = .seconds(2)
        }
        connection.push(note(0), to: (1...Self.count).map(device)) { index, outcome in log.outcome(index + 1)(outcome) }
        let report = await connection.shutdown()
        #expect(log.eventNames.contains("timeout"), "the stalled connection was given up")
        DeliveryCheck(log: log, mock: fixture.mock, count: Self.count).expectTruthful()
        // The stall fires once: the next connection takes the rest, and what the stalled
        // one left unconfirmed is resent, marked.
        #expect(report.accepted == Self.count)
        #expect(RecordCounts(fixture.mock).counts.count == Self.count)
    }
}
