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
        _ = await connection.shutdown()
    }
}
