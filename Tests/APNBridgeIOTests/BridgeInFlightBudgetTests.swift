import APN
import APNBridge
import Foundation
import APNMockGateway
import APNTestSupport
import APNTestTraits
import Testing

/// `--max-in-flight` (#42): what every connection holds together stays under the bound,
/// the connections take turns at it, and nothing is lost or sent twice for it.
@Suite(.threadPerTest)
struct BridgeInFlightBudgetTests {
    /// Three senders of 2,000 each into an upstream that holds every answer a second: the
    /// bound (1,000) is reached long before the first answer, so the connections wait
    /// their turn, and every notification still arrives once.
    @Test func connectionsTogetherHoldNoMoreThanTheBound() async throws {
        var faults = HTTP2MockGateway.Faults()
        faults.responseDelay = .seconds(1)
        let fixture = try BridgeFixture(faults: faults) { $0.maxInFlight = 1_000 }
        let perConnection = 2_000
        let connections = (0..<3).map { _ in Connection(options: fixture.connectionOptions()) }
        for (index, connection) in connections.enumerated() {
            for n in index * perConnection..<(index + 1) * perConnection { connection.push(note(n), to: device(n)) }
        }
        var accepted = 0
        for connection in connections { accepted += await connection.shutdown().accepted }
        #expect(accepted == 3 * perConnection)
        let upstream = fixture.upstream
        #expect(await onThread { upstream.waitForRecords(count: 3 * perConnection, timeout: .seconds(60)) })
        let deliveries = fixture.deliveries()
        #expect(deliveries.count == 3 * perConnection && deliveries.values.allSatisfy { $0 == 1 })
        let summary = fixture.bridge.summary
        #expect(summary.maxInFlight == 1_000)
        #expect(summary.heldPeak <= 1_000 && summary.heldPeak > 0, "held at most: \(summary.heldPeak)")
        #expect(summary.roomWaits > 0, "the bound was reached")
        #expect(await fixture.wait { $0.held == 0 && $0.waitingForRoom == 0 }, "everything settled gives its room back")
    }

    /// A reload changes the bound at once; `nil` lifts it.
    @Test func aReloadChangesTheBound() throws {
        let fixture = try BridgeFixture { $0.maxInFlight = 100 }
        var configuration = fixture.bridge.configuration
        configuration.maxInFlight = 50
        #expect(try fixture.bridge.reload(configuration).needsRestart.isEmpty)
        #expect(fixture.bridge.summary.maxInFlight == 50)
        configuration.maxInFlight = nil
        _ = try fixture.bridge.reload(configuration)
        #expect(fixture.bridge.summary.maxInFlight == nil)
        #expect(fixture.bridge.configuration.maxInFlight == nil)
    }
}
