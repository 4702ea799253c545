import APN
import APNBridge
import APNWire
import Foundation
import APNMockGateway
import TestSupport
import Testing

/// The bridge's own credentials refused upstream: status 10, and new connections are held,
/// reading nothing, while the tenant's upstream backs off (no resend storm, nothing lost).
@Suite(.threadPerTest)
struct BridgeBackoffTests {
    @Test func aRefusedProviderTokenEndsWithStatus10AndBacksOff() async throws {
        let fixture = try BridgeFixture(wrongKey: true)
        let connection = Connection(options: fixture.connectionOptions())
        for n in 0..<5 { connection.push(note(n), to: device(n)) }
        // The client is told status 10 and reconnects to resend: held during the backoff.
        #expect(await fixture.wait { $0.counts.bridgeFailures >= 1 && $0.counts.heldConnections >= 1 })
        #expect(fixture.bridge.summary.refusedConnections == 0)
        #expect(fixture.upstream.recordCount == 0)
        #expect(fixture.bridge.summary.counts.delivered == 0)
        #expect(
            fixture.bridge.notReadyReasons() == ["tenant app: upstream failing (InvalidProviderToken)"],
            "a balancer's readiness check sends clients elsewhere meanwhile")
        _ = await connection.shutdown()
    }

    /// Ready while listening and the upstream works; not once stopping.
    @Test func readyUntilTheStop() async throws {
        let fixture = try BridgeFixture()
        let connection = Connection(options: fixture.connectionOptions())
        connection.push(note(1), to: device(1))
        #expect(await connection.shutdown().accepted == 1)
        #expect(fixture.bridge.notReadyReasons().isEmpty)
        fixture.bridge.stop(grace: .zero)
        #expect(fixture.bridge.notReadyReasons() == ["stopping"])
    }
}
