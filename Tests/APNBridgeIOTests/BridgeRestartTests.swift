import APN
import APNBridge
import APNMockGateway
import APNWire
import Foundation
import Testing
import APNTestSupport

/// #41: the bridge keeps its word across a stop and a restart on the same `--store`. The
/// client resends, after its error response, what followed the notification it names, as
/// the protocol asks; a restarted bridge answers from the record the first one kept in the
/// store, and nothing reaches the upstream twice.
@Suite("the bridge: exactly once across a restart", .timeLimit(.minutes(5)))
struct BridgeRestartTests {
    /// After a refusal the first bridge forwarded (and recorded) everything that followed;
    /// it stops; the client resends those to the restarted bridge, which answers every one
    /// from the record in the store: none is forwarded again.
    /// The stores a restart is tried on: SQLite, and PostgreSQL where a test server runs.
    static let stores = PostgresAdmin.testURL == nil ? [false] : [false, true]

    @Test(arguments: stores)
    func resendsAfterARefusalAreAnsweredFromTheStoredRecordAfterARestart(postgres: Bool) async throws {
        let count = 2_000
        let refused = 50
        var faults = HTTP2MockGateway.Faults()
        faults.rejectToken(device(refused).hexString, reason: .badDeviceToken)
        let fixture = try BridgeFixture(faults: faults, storeFeedback: !postgres, postgresStore: postgres) {
            $0.collectionQuietPeriod = .seconds(60)
        }
        let frames = RawFrames(count: count, command: .enhanced)
        let first = try RawBinaryClient(fixture)
        let run = try first.write(frames, indices: Array(0..<count), round: 0, awaitingResponse: false)
        let response = try run.response ?? first.awaitResponse()
        #expect(response == ErrorResponse(status: .invalidToken, identifier: frames.identifier(refused, round: 0)))
        #expect(await fixture.wait(timeout: .seconds(120)) { $0.counts.forwarded == count })
        let upstream = fixture.upstream
        #expect(await onThread { upstream.waitForRecords(count: count - 1, timeout: .seconds(120)) })
        let bridge = fixture.bridge
        _ = await onThread {
            bridge.stop(grace: .seconds(5))
            return true
        }

        let restarted = try fixture.restarted()
        defer { restarted.stop(grace: .seconds(2)) }
        try await Self.resendsAreAnswered(by: restarted, fixture, frames: frames, after: refused)
    }

    /// A client resends everything after the refused notification to `bridge`: every resend
    /// is answered from the record, none forwarded, and the upstream has each notification
    /// but the refused one exactly once.
    static func resendsAreAnswered(by bridge: Bridge, _ fixture: BridgeFixture, frames: RawFrames, after refused: Int)
        async throws
    {
        let count = frames.count
        let second = try RawBinaryClient(fixture, port: bridge.gatewayPort)
        let resent = Array(refused + 1..<count)
        #expect(try second.write(frames, indices: resent, round: 1).response == nil, "every resend answered as it was: accepted")
        second.connection.close()
        #expect(await onThread { bridge.wait(until: .now + .seconds(60)) { $0.counts.received == resent.count } })
        let counts = bridge.summary.counts
        #expect(counts.forwarded == 0, "nothing forwarded twice")
        #expect(counts.resendsAnswered == resent.count)
        let deliveries = fixture.deliveries()
        let wrong = (0..<count).filter { $0 != refused && deliveries[device($0).hexString] != 1 }
        #expect(wrong.count == 0, "not upstream exactly once: \(wrong.prefix(20)) (\(wrong.count))")
        #expect(fixture.upstream.recordCount == count - 1)
    }

    /// The upstream answers too late for the grace: what was on the wire becomes maybe
    /// delivered (the client sees it accepted), the rest is withdrawn; the client resends
    /// from after the status 10's identifier to the restarted bridge, and every
    /// notification reaches the upstream exactly once.
    @Test func aStopMidFlightThenARestartDeliversEachOnce() async throws {
        let count = 1_000
        let streams = 100
        var faults = HTTP2MockGateway.Faults()
        faults.responseDelay = .seconds(600)
        let fixture = try BridgeFixture(faults: faults, storeFeedback: true, upstreamStreams: UInt32(streams))
        let frames = RawFrames(count: count, command: .enhanced)
        let first = try RawBinaryClient(fixture)
        _ = try first.write(frames, indices: Array(0..<count), round: 0, awaitingResponse: false)
        #expect(await fixture.wait { $0.counts.forwarded == count })
        let upstream = fixture.upstream
        #expect(await onThread { upstream.waitForRecords(count: streams, timeout: .seconds(60)) })
        let bridge = fixture.bridge
        let summary = await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: bridge.stop(grace: .milliseconds(100))) }
        }
        #expect(summary.counts.maybeDelivered == streams)
        let response = try #require(try first.awaitResponse())
        #expect(response.status == .shutdown)
        let named = Int(response.identifier)
        #expect(named == streams - 1, "the maybe delivered count as accepted")

        // The restarted bridge's upstream answers at once.
        var quick = HTTP2MockGateway.Faults()
        quick.responseDelay = .zero
        upstream.setFaults(quick)
        let restarted = try fixture.restarted()
        defer { restarted.stop(grace: .seconds(2)) }
        let second = try RawBinaryClient(fixture, port: restarted.gatewayPort)
        let resent = Array(named + 1..<count)
        #expect(try second.write(frames, indices: resent, round: 1).response == nil)
        #expect(await onThread { upstream.waitForRecords(count: count, timeout: .seconds(60)) })
        #expect(await onThread { restarted.wait(until: .now + .seconds(60)) { $0.counts.delivered == resent.count } })
        let deliveries = fixture.deliveries()
        let wrong = (0..<count).filter { deliveries[device($0).hexString] != 1 }
        #expect(wrong.count == 0, "not upstream exactly once: \(wrong.prefix(20)) (\(wrong.count))")
        #expect(upstream.recordCount == count)
    }
}
