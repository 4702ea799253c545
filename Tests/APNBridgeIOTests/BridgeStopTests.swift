import APN
import APNBridge
import Foundation
import Synchronization
import APNMockGateway
import TestSupport
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
}

/// The events a connection emitted, for failure messages.
final class StopLog: Sendable {
    private let events = Mutex<[String]>([])

    var all: [String] { events.withLock { $0 } }

    func note(_ event: ConnectionEvent) {
        events.withLock { $0.append("\(event)") }
    }
}
