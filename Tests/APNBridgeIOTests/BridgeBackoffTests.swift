import APN
import APNBridge
import APNWire
import Foundation
import APNMockGateway
import APNTestSupport
import APNTestTraits
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

    /// An upstream that takes no connection is seen before any notification fails on it.
    @Test func anUpstreamThatTakesNoConnectionIsNotReady() async throws {
        let fixture = try BridgeFixture()
        let bridge = fixture.bridge
        #expect(await onThread { bridge.checkUpstreams(timeout: .seconds(30)).isEmpty }, "reachable")
        _ = fixture.upstream.stop()
        let reasons = await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: bridge.checkUpstreams(timeout: .seconds(30))) }
        }
        #expect(reasons.count == 1 && reasons[0].hasPrefix("tenant app: upstream unreachable (connecting to 127.0.0.1:"), "\(reasons)")
        #expect(bridge.summary.counts.forwarded == 0, "nothing was sent to find out")
    }
}
