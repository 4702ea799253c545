import APN
import APNBridge
import APNWire
import Foundation
import Synchronization
import APNMockGateway
import APNTestSupport
import APNTestTraits
import Testing

/// ``Bridge/stop(grace:)``: what was forwarded is answered within the grace, then the
/// client is told status 10 naming the last accepted, and nothing is lost.
@Suite(.threadPerTest)
struct BridgeStopTests {
    @Test func stoppingWaitsForTheAnswersThenEndsTheConnections() async throws {
        var faults = HTTP2MockGateway.Faults()
        // Answers still due when the stop comes.
        faults.responseDelay = .milliseconds(500)
        let fixture = try BridgeFixture(faults: faults)
        let log = StopLog()
        let connection = Connection(options: fixture.connectionOptions())
        connection.on { event in log.note(event) }
        for n in 0..<20 { connection.push(note(n), to: device(n)) }
        #expect(await fixture.wait { $0.counts.forwarded == 20 })
        let bridge = fixture.bridge
        let summary = await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: bridge.stop(grace: .seconds(20))) }
        }
        #expect(summary.counts.delivered == 20)
        #expect(summary.unfinishedSessions == 0)
        let report = await connection.shutdown()
        #expect(report.accepted == 20, "\(report); events: \(log.all)")
        #expect(report.rejected == 0 && report.failed == 0)
        #expect(fixture.deliveries().count == 20)
    }

    /// #41 "stop means stop": an upstream that never answers; at the grace's end the
    /// requests not written are withdrawn (never sent: the client resends them after its
    /// status 10), those on the wire become maybe delivered, and the stop returns although
    /// the provider's request timeout is far off.
    @Test func atTheGraceNothingMoreGoesUpstreamAndTheStopDoesNotWaitForTheUpstream() async throws {
        var faults = HTTP2MockGateway.Faults()
        faults.responseDelay = .seconds(600)
        let streams = 50
        let fixture = try BridgeFixture(faults: faults, upstreamStreams: UInt32(streams))
        let frames = RawFrames(count: 500, command: .enhanced)
        let client = try RawBinaryClient(fixture)
        _ = try client.write(frames, indices: Array(0..<500), round: 0, awaitingResponse: false)
        let upstream = fixture.upstream
        #expect(await fixture.wait { $0.counts.forwarded == 500 })
        #expect(await onThread { upstream.waitForRecords(count: streams, timeout: .seconds(60)) })
        let bridge = fixture.bridge
        let summary = await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: bridge.stop(grace: .milliseconds(100))) }
        }
        // Maybe delivered counts as accepted for the client: the ones on the wire, never resent.
        #expect(
            try client.awaitResponse() == ErrorResponse(status: .shutdown, identifier: frames.identifier(streams - 1, round: 0)))
        #expect(summary.counts.maybeDelivered == streams, "on the wire at the grace's end")
        #expect(summary.counts.bridgeFailures == 500 - streams, "withdrawn unsent")
        #expect(summary.counts.delivered == 0)
        #expect(summary.unfinishedSessions == 0)
        #expect(upstream.recordCount == streams, "nothing withdrawn reached the upstream")
    }
}

/// The events a connection emitted, for failure messages.
final class StopLog: Sendable {
    private let events = Mutex<[String]>([])

    var all: [String] { events.withLock { $0 } }

    func note(_ event: ConnectionEvent) {
        events.withLock { $0.append("\(event)") }
    }
}
