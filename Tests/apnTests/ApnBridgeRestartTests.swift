import APN
import Foundation
import Synchronization
import Testing
import TestSupport

/// #41 with processes: `apn bridge --store` stopped by SIGTERM while the upstream
/// (`apn mock-gateway --http2`) answers slower than the grace, and a new `apn bridge` on the
/// same port and store. The client (`Connection`, as a legacy sender: it resends after its
/// status 10 what followed the notification named) reaches the upstream exactly once.
@Suite("apn bridge: SIGTERM and a restart", .threadPerTest, .ownsChildProcesses, .timeLimit(.minutes(5)))
struct ApnBridgeRestartTests {
    /// `apn bridge` on `port` in front of `fixture`'s upstream, with the store; nil when the
    /// port was taken (the bridge exits 1 naming it).
    static func bridge(_ fixture: SendFixture, port: UInt16, grace: Int) throws -> ApnProcess? {
        let upstream = try #require(fixture.http2Address)
        let bridge = try ApnProcess(
            ["bridge", "--port", "\(port)", "--feedback-port", "0", "--upstream", upstream,
             "--upstream-ca", fixture.path("certs/ca.pem"), "--grace", "\(grace)", "--store", fixture.path("bridge.sqlite")]
                + ApnBridgeTests.tokenFlags(fixture))
        guard let line = try? bridge.nextLine(), (try? jsonObject(line))?["gateway"] != nil else {
            _ = try? bridge.waitForExit()
            return nil
        }
        return bridge
    }

    @Test("SIGTERM with answers outstanding, then a new bridge on the same port and store: each notification upstream once")
    func sigtermThenRestart() async throws {
        let count = 2_500
        // Slower than the grace: at the stop up to 1,000 are on the wire (the mock's streams),
        // the rest queued or not read yet.
        let fixture = try SendFixture(gatewayArguments: ["--http2", "--http2-delay-ms", "2000"])
        var started: (ApnProcess, UInt16)?
        for _ in 0..<50 where started == nil {
            let port = UInt16.random(in: 20_000..<32_768)
            if let bridge = try Self.bridge(fixture, port: port, grace: 1) { started = (bridge, port) }
        }
        let (first, port) = try #require(started, "no free port below the ephemeral range")

        var options = Connection.Options()
        options.address = "127.0.0.1"
        options.port = port
        options.cert = .file(fixture.path("certs/client.pem"))
        options.key = .file(fixture.path("certs/client.key"))
        options.ca = [.file(fixture.path("certs/ca.pem"))]
        let connection = Connection(options: options)
        let transmitted = TransmittedCount()
        let events = Mutex<[String]>([])
        connection.on { event in
            if case .transmitted = event { transmitted.add() } else if case .completed = event {} else { events.withLock { $0.append("\(event)") } }
        }
        for n in 0..<count {
            let token = (0..<32).map { UInt8(truncatingIfNeeded: $0 == 31 ? n : ($0 == 30 ? n >> 8 : 0xA0)) }
            connection.push(Notification().setAlertText("n\(n)"), to: try Device(token: token))
        }
        let written = await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: transmitted.wait(for: count)) }
        }
        #expect(written, "the client wrote everything to the first bridge")

        first.send(SIGTERM)
        let (status, standardError) = try first.waitForExit()
        #expect(status == 0, "\(standardError)")
        let summary = try jsonObject(try #require(try first.remainingLines().last))
        let maybe = summary["maybe_delivered"] as? Int ?? 0
        #expect(maybe > 0, "some were on the wire when the grace ended: \(summary)")

        // A grace long enough for every answer: the client closes before they come.
        let second = try #require(try Self.bridge(fixture, port: port, grace: 60), "the port is free again")
        let report = await connection.shutdown()
        #expect(report.accepted == count && report.failed == 0 && report.rejected == 0, "\(report)")
        #expect(events.withLock { $0 }.contains("transmissionError(10, nil)"), "told status 10 by the first bridge")
        second.send(SIGTERM)
        let after = try second.waitForExit()
        #expect(after.status == 0, "\(after.standardError)")
        let resent = try jsonObject(try #require(try second.remainingLines().last))
        #expect(resent["delivered"] as? Int == resent["received"] as? Int, "the second delivered all it read: \(resent)")
        #expect(resent["received"] as? Int == count - maybe, "resent: what followed the maybe delivered, which the client saw accepted")
        let upstream = try #require(try fixture.stop()["http2"] as? [String: Any])
        #expect(upstream["accepted"] as? Int == count, "each exactly once upstream: first \(summary), second \(resent)")
    }
}

/// Counts `transmitted` events, for a wait on a thread of its own.
final class TransmittedCount: Sendable {
    private let count = Mutex(0)
    private let condition = NSCondition()

    func add() {
        count.withLock { $0 += 1 }
        condition.lock()
        condition.broadcast()
        condition.unlock()
    }

    /// Waits until `target` were counted (at most 60 s).
    func wait(for target: Int) -> Bool {
        let deadline = Date(timeIntervalSinceNow: 60)
        condition.lock()
        defer { condition.unlock() }
        while count.withLock({ $0 }) < target {
            if !condition.wait(until: deadline) { return count.withLock { $0 } >= target }
        }
        return true
    }
}
