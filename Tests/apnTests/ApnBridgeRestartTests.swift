import APN
import Foundation
import Synchronization
import Testing
import APNTestSupport
import APNTestTraits

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

    /// A bridge on a free port below the ephemeral range (a restart must find it again).
    static func bridgeOnFreePort(_ fixture: SendFixture, grace: Int) throws -> (ApnProcess, UInt16) {
        for _ in 0..<50 {
            let port = UInt16.random(in: 20_000..<32_768)
            if let bridge = try bridge(fixture, port: port, grace: grace) { return (bridge, port) }
        }
        throw TLSTestError("no free port below the ephemeral range")
    }

    /// A `Connection` to the bridge on `port` with the fixture's client certificate, counting
    /// what it wrote and noting every other event but `completed`; `count` notifications
    /// pushed, to distinct tokens marked `mark`.
    static func client(
        _ fixture: SendFixture, port: UInt16, count: Int, mark: UInt8, address: String = "127.0.0.1"
    ) throws -> (Connection, TransmittedCount, EventLog) {
        var options = Connection.Options()
        options.address = address
        options.port = port
        options.cert = .file(fixture.path("certs/client.pem"))
        options.key = .file(fixture.path("certs/client.key"))
        options.ca = [.file(fixture.path("certs/ca.pem"))]
        let connection = Connection(options: options)
        let transmitted = TransmittedCount()
        let events = EventLog()
        connection.on { event in
            if case .transmitted = event { transmitted.add() } else if case .completed = event {} else { events.note(event) }
        }
        for n in 0..<count {
            let token = (0..<32).map { UInt8(truncatingIfNeeded: $0 == 31 ? n : ($0 == 30 ? n >> 8 : Int(mark))) }
            connection.push(Notification().setAlertText("n\(n)"), to: try Device(token: token))
        }
        return (connection, transmitted, events)
    }

    @Test("SIGTERM with answers outstanding, then a new bridge on the same port and store: each notification upstream once")
    func sigtermThenRestart() async throws {
        let count = 2_500
        // Slower than the grace: at the stop up to 1,000 are on the wire (the mock's streams),
        // the rest queued or not read yet.
        let fixture = try SendFixture(gatewayArguments: ["--http2", "--http2-delay-ms", "2000"])
        let (first, port) = try Self.bridgeOnFreePort(fixture, grace: 1)
        let (connection, transmitted, events) = try Self.client(fixture, port: port, count: count, mark: 0xA0)
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
        #expect(events.all.contains("transmissionError(10, nil)"), "told status 10 by the first bridge")
        second.send(SIGTERM)
        let after = try second.waitForExit()
        #expect(after.status == 0, "\(after.standardError)")
        let resent = try jsonObject(try #require(try second.remainingLines().last))
        #expect(resent["delivered"] as? Int == resent["received"] as? Int, "the second delivered all it read: \(resent)")
        #expect(resent["received"] as? Int == count - maybe, "resent: what followed the maybe delivered, which the client saw accepted")
        let upstream = try #require(try fixture.stop()["http2"] as? [String: Any])
        #expect(upstream["accepted"] as? Int == count, "each exactly once upstream: first \(summary), second \(resent)")
    }

    @Test("SIGKILL with notifications read, handed and on the wire, then a new bridge on the same port and store: each upstream once")
    func sigkillThenRestart() async throws {
        let count = 3_000
        // The upstream answers a second late: at the kill up to 1,000 are on the wire (the
        // journal's credit, the mock's streams) and the rest wait in the journal.
        let recordFile = NSTemporaryDirectory() + "bridge-kill-\(UUID().uuidString).jsonl"
        defer { try? FileManager.default.removeItem(atPath: recordFile) }
        let fixture = try SendFixture(gatewayArguments: ["--http2", "--http2-delay-ms", "1000", "--record", recordFile])
        let (first, port) = try Self.bridgeOnFreePort(fixture, grace: 1)
        let (connection, transmitted, events) = try Self.client(fixture, port: port, count: count, mark: 0xB0)
        let written = await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: transmitted.wait(for: count)) }
        }
        #expect(written, "the client wrote everything to the first bridge")
        first.send(SIGKILL)
        _ = try first.waitForExit()

        let second = try #require(try Self.bridge(fixture, port: port, grace: 60), "the port is free again")
        let report = await connection.shutdown()
        #expect(report.failed == 0 && report.rejected == 0, "\(report); \(events.all)")
        let summary = try Self.summaryAtStop(second)
        _ = try fixture.stop()
        // Per token, what the upstream read. Requests on the wire at the kill may have been
        // read or not (the killed socket's reset discards what the upstream had not read
        // yet): those are counted maybe delivered, never sent again.
        let seen = try Self.acceptedOnceEach(recordFile)
        let maybe = summary["maybe_delivered_before_start"] as? Int ?? 0
        #expect(seen.count <= count && seen.count >= count - maybe, "lost only what was on the wire: \(seen.count) of \(count), \(summary)")
        #expect(maybe + (summary["recovered"] as? Int ?? 0) > 0, "the kill caught some in the journal: \(summary)")
        print("SIGKILL + restart: \(seen.count) of \(count) upstream once, 0 twice; maybe delivered before the start \(maybe), recovered \(summary["recovered"] ?? 0)")
    }
}

extension ApnBridgeRestartTests {
    /// Stops `bridge` with SIGTERM, expects exit status 0, and returns its summary line.
    static func summaryAtStop(_ bridge: ApnProcess) throws -> [String: Any] {
        bridge.send(SIGTERM)
        let (status, standardError) = try bridge.waitForExit()
        #expect(status == 0, "\(standardError)")
        return try jsonObject(try #require(try bridge.remainingLines().last))
    }

    /// How often the mock's `--record` file says it accepted each token, expecting none twice.
    static func acceptedOnceEach(_ recordFile: String) throws -> [String: Int] {
        let seen = try acceptedByToken(recordFile)
        #expect(seen.values.allSatisfy { $0 == 1 }, "none twice upstream: \(seen.values.filter { $0 > 1 }.count) twice")
        return seen
    }

    /// How often the mock's `--record` file says it accepted each token.
    static func acceptedByToken(_ recordFile: String) throws -> [String: Int] {
        var seen: [String: Int] = [:]
        for line in try String(contentsOfFile: recordFile, encoding: .utf8).split(separator: "\n") {
            if let token = try jsonObject(String(line))["token"] as? String { seen[token, default: 0] += 1 }
        }
        return seen
    }
}

/// The events a connection emitted, for failure messages.
final class EventLog: Sendable {
    private let events = Mutex<[String]>([])

    var all: [String] { events.withLock { $0 } }

    func note(_ event: ConnectionEvent) {
        events.withLock { $0.append("\(event)") }
    }
}

/// A test's own failure, for a throwing helper.
struct TLSTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
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
