import APN
import APNBridge
import APNMockGateway
import APNWire
import Foundation
import Testing
import APNTestSupport

/// #41 item 4: two bridges on one store (PostgreSQL where a test server runs, else one
/// SQLite file). A client refused by one reconnects to the other — as a balancer may send
/// it — and resends what followed the refusal: the other answers every resend from the
/// first's record, which it reads from the store as the connection opens. None goes upstream
/// twice.
@Suite("the bridge: a client moving between two bridges on one store", .timeLimit(.minutes(5)))
struct BridgeFleetTests {
    @Test(arguments: BridgeRestartTests.stores)
    func resendsAfterARefusalOnOneBridgeAreAnsweredByTheOther(postgres: Bool) async throws {
        let count = 2_000
        let refused = 50
        var faults = HTTP2MockGateway.Faults()
        faults.rejectToken(device(refused).hexString, reason: .badDeviceToken)
        let fixture = try BridgeFixture(faults: faults, storeFeedback: !postgres, postgresStore: postgres) {
            $0.collectionQuietPeriod = .seconds(60)
        }
        // The second bridge, alive beside the first, on the same store and upstream.
        let other = try fixture.restarted()
        defer { other.stop(grace: .seconds(2)) }
        let frames = RawFrames(count: count, command: .enhanced)
        let first = try RawBinaryClient(fixture)
        let run = try first.write(frames, indices: Array(0..<count), round: 0, awaitingResponse: false)
        let response = try run.response ?? first.awaitResponse()
        #expect(response == ErrorResponse(status: .invalidToken, identifier: frames.identifier(refused, round: 0)))
        #expect(await fixture.wait(timeout: .seconds(120)) { $0.counts.forwarded == count })
        let upstream = fixture.upstream
        #expect(await onThread { upstream.waitForRecords(count: count - 1, timeout: .seconds(120)) })
        first.connection.close()
        #expect(await fixture.wait(timeout: .seconds(60)) { $0.unfinishedSessions == 0 })

        try await BridgeRestartTests.resendsAreAnswered(by: other, fixture, frames: frames, after: refused)
    }
}
