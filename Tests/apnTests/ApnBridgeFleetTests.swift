import APN
import Foundation
import Testing
import APNTestSupport
import APNTestTraits

/// Debian's `haproxy`.
private let haproxyPath = "/usr/sbin/haproxy"

/// #41 item 4 with processes: two `apn bridge` on one PostgreSQL store behind HAProxy
/// (Debian's `haproxy`, round robin, TCP, as docs/BRIDGE.md's "Running several bridges" configures
/// it), in front of one `apn mock-gateway --http2`. A `Connection` sends through the
/// balancer (`balance first`, so the first bridge holds it); a refusal makes it reconnect and
/// resend; then the first bridge is killed and the client moves to the second, which takes
/// the dead one's state over as the connection opens. Upstream: none twice, nothing lost but
/// what was on the wire at the kill (counted); the 410 served once, by the survivor.
/// (`BridgeFleetTests` moves a client between two live bridges after a refusal.)
@Suite(
    "apn bridge: two instances on one PostgreSQL behind HAProxy", .threadPerTest, .ownsChildProcesses,
    .timeLimit(.minutes(5)),
    .enabled(if: PostgresAdmin.testURL != nil, "APN_TEST_POSTGRES_URL is not set (scripts/postgres-test-cluster)"),
    .enabled(if: FileManager.default.isExecutableFile(atPath: haproxyPath), "no /usr/sbin/haproxy (apt install haproxy)"))
struct ApnBridgeFleetTests {
    static let haproxy = haproxyPath

    /// docs/BRIDGE.md's configuration, with the test's ports and `balance`: `first` sends every
    /// connection to the first bridge while it is up, so the test knows which one to kill.
    static func haproxyConfiguration(port: UInt16, gateways: [String], balance: String = "roundrobin") -> String {
        """
        global
            maxconn 2000
        defaults
            mode tcp
            timeout connect 2s
            timeout client 10m
            timeout server 10m
            retries 3
            option redispatch
        listen apn-gateway
            bind 127.0.0.1:\(port)
            balance \(balance)
        \(gateways.enumerated().map { "    server bridge\($0.offset) \($0.element) check inter 200ms fall 1 rise 2" }.joined(separator: "\n"))

        """
    }

    /// HAProxy in front of `gateways` with `balance first` (the first holds every client while
    /// it is up), on a free port: HAProxy binds it at once, and a client retries its connect
    /// until it listens.
    static func balancer(_ fixture: SendFixture, _ gateways: [String]) throws -> (ApnProcess, port: UInt16) {
        let port = try PlainSockets.unusedPort()
        let configuration = try fixture.file(
            "haproxy.cfg", haproxyConfiguration(port: port, gateways: gateways, balance: "first"))
        return (try ApnProcess(["-db", "-f", configuration], executable: haproxy), port)
    }

    @Test("a refusal, then the bridge holding the client killed: it moves to the other; none twice upstream, the 410 served once")
    func failoverAndKill() async throws {
        let count = 3_000
        let refusedIndex = 1_000
        let unregisteredIndex = 500
        let mark: UInt8 = 0xC0
        func token(_ n: Int) -> [UInt8] { (0..<32).map { UInt8(truncatingIfNeeded: $0 == 31 ? n : ($0 == 30 ? n >> 8 : Int(mark))) } }
        func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
        let recordFile = NSTemporaryDirectory() + "bridge-fleet-\(UUID().uuidString).jsonl"
        defer { try? FileManager.default.removeItem(atPath: recordFile) }
        let fixture = try SendFixture(gatewayArguments: [
            "--http2", "--http2-delay-ms", "300", "--record", recordFile,
            "--http2-reason", "\(hex(token(refusedIndex))):BadDeviceToken",
            "--http2-unregistered", "\(hex(token(unregisteredIndex))):1700000000000",
        ])
        let schema = "apn_fleet_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let store = try PostgresAdmin.location(schema: schema)
        defer { PostgresAdmin.drop(schema: schema) }
        let upstream = try #require(fixture.http2Address)
        func bridge() throws -> (ApnProcess, gateway: String, feedback: String) {
            let process = try ApnProcess(
                ["bridge", "--port", "0", "--feedback-port", "0", "--upstream", upstream, "--upstream-ca",
                 fixture.path("certs/ca.pem"), "--grace", "30", "--store", store] + ApnBridgeTests.tokenFlags(fixture))
            let started = try jsonObject(try process.nextLine())
            return (process, try #require(started["gateway"] as? String), try #require(started["feedback"] as? String))
        }
        let (first, firstGateway, firstFeedback) = try bridge()
        let (second, secondGateway, secondFeedback) = try bridge()

        let (balancer, port) = try Self.balancer(fixture, [firstGateway, secondGateway])

        let (connection, transmitted, events) = try ApnBridgeRestartTests.client(
            fixture, port: port, count: count, mark: mark, address: "127.0.0.1")
        // Written, refused at #1,000, and everything after it resent on a second connection,
        // which the balancer gave the other bridge.
        let resends = count - refusedIndex - 1
        let written = await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: transmitted.wait(for: count + resends)) }
        }
        #expect(written, "\(events.all)")
        // The first bridge holds the client (`balance first`); it is killed, and the client
        // moves to the second, which takes the dead one's state over as the connection opens.
        let (killed, survivor, survivorFeedback) = (first, second, secondFeedback)
        _ = firstFeedback
        killed.send(SIGKILL)
        _ = try killed.waitForExit()
        let report = await connection.shutdown()
        #expect(report.rejected == 1 && report.failed == 0, "\(report); \(events.all)")
        #expect(events.all.contains { $0.hasPrefix("transmissionError(8") }, "the refusal reached the client: \(events.all)")

        // The 410's tuple, from the survivor's feedback port, once.
        let feedback = try ApnProcess(["feedback", "--once", "--certs", fixture.certs, "--address", survivorFeedback])
        _ = try feedback.waitForExit()
        let tuples = try feedback.remainingLines().map(jsonObject)
        #expect(tuples.count == 1 && tuples.first?["token"] as? String == hex(token(unregisteredIndex)), "\(tuples)")
        let again = try ApnProcess(["feedback", "--once", "--certs", fixture.certs, "--address", survivorFeedback])
        _ = try again.waitForExit()
        #expect(try again.remainingLines().isEmpty, "served once")

        let summary = try ApnBridgeRestartTests.summaryAtStop(survivor)
        balancer.send(SIGTERM)
        _ = try balancer.waitForExit()
        _ = try fixture.stop()
        let seen = try ApnBridgeRestartTests.acceptedOnceEach(recordFile)
        let maybe = summary["maybe_delivered_before_start"] as? Int ?? 0
        // The mock records what it accepted (200): not the refused one, nor the 410.
        #expect(seen[hex(token(refusedIndex))] == nil && seen[hex(token(unregisteredIndex))] == nil)
        let delivered = seen.count
        let expected = count - 2
        #expect(delivered <= expected && delivered >= expected - maybe, "lost only what was on the wire at the kill: \(delivered), \(summary)")
        #expect(summary["connections"] as? Int == 1, "the client moved to the survivor once: \(summary)")
        #expect(summary["resends_answered"] as? Int ?? 0 > 0, "its resends answered from what the dead one left: \(summary)")
        print("fleet: \(delivered) of \(expected) upstream once, 0 twice; the survivor: \(summary)")
    }

    @Test("the store's session of the bridge holding the client ends: it ends as a crash would, exit 1; the other takes over; none twice upstream")
    func storeSessionLost() async throws {
        let count = 3_000
        let mark: UInt8 = 0xC4
        let recordFile = NSTemporaryDirectory() + "bridge-lock-lost-\(UUID().uuidString).jsonl"
        defer { try? FileManager.default.removeItem(atPath: recordFile) }
        // A second late: at the loss up to 1,000 are handed upstream and the rest wait in the journal.
        let fixture = try SendFixture(gatewayArguments: ["--http2", "--http2-delay-ms", "1000", "--record", recordFile])
        let schema = "apn_lost_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let store = try PostgresAdmin.location(schema: schema)
        defer { PostgresAdmin.drop(schema: schema) }
        // Named, so that the test ends this bridge's session and no other test's.
        let session = "apn-bridge-" + schema
        let upstream = try #require(fixture.http2Address)
        func bridge(_ store: String) throws -> (ApnProcess, gateway: String, admin: UInt16) {
            // A grace longer than the upstream's delay: what the first was handed is answered before it ends.
            let process = try ApnProcess(
                ["bridge", "--port", "0", "--feedback-port", "0", "--upstream", upstream, "--upstream-ca",
                 fixture.path("certs/ca.pem"), "--grace", "10", "--store", store, "--admin", "127.0.0.1:0"]
                    + ApnBridgeTests.tokenFlags(fixture))
            let started = try jsonObject(try process.nextLine())
            return (process, try #require(started["gateway"] as? String), try AdminClient.port(started["admin"] as? String))
        }
        let (first, firstGateway, firstAdmin) = try bridge(store + "&application_name=" + session)
        let (second, secondGateway, _) = try bridge(store)
        let (balancer, port) = try Self.balancer(fixture, [firstGateway, secondGateway])

        let (connection, transmitted, events) = try ApnBridgeRestartTests.client(
            fixture, port: port, count: count, mark: mark, address: "127.0.0.1")
        let written = await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: transmitted.wait(for: count)) }
        }
        #expect(written, "\(events.all)")
        // Everything read and in the journal (the first's metrics say so), some of it still
        // unanswered upstream, the rest not yet handed: then the first bridge's store
        // session ends (as at a PostgreSQL restart or failover), its lock with it.
        let tenant = #"{tenant="com.example.app"}"#
        let deadline = ContinuousClock.now + .seconds(60)
        var journaled = false
        while !journaled, ContinuousClock.now < deadline, let (_, metrics) = AdminClient.exchange(firstAdmin, "GET /metrics HTTP/1.1\r\n\r\n") {
            journaled = AdminClient.value(metrics, "apn_bridge_notifications_received_total" + tenant) == Double(count)
                && AdminClient.value(metrics, "apn_bridge_unjournaled_notifications" + tenant) == 0
        }
        #expect(journaled, "the first read and journaled everything")
        let admin = try PostgresAdmin(try #require(PostgresAdmin.testURL))
        try admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = '\(session)'")
        let (status, standardError) = try first.waitForExit()
        #expect(status == 1, "it ends, saying it failed: \(standardError)")
        #expect(standardError.contains("\"event\":\"store_lock_lost\""), "\(standardError)")
        let abandoned = try #require(
            standardError.split(separator: "\n").map(String.init).first { $0.contains("\"event\":\"abandoned\"") },
            "\(standardError)")
        let unjournaled = try #require(try jsonObject(abandoned)["unjournaled"] as? Int)
        let stopped = try jsonObject(try #require(try first.remainingLines().last))

        let report = await connection.shutdown()
        #expect(report.failed == 0 && report.rejected == 0, "\(report); \(events.all)")
        let summary = try ApnBridgeRestartTests.summaryAtStop(second)
        balancer.send(SIGTERM)
        _ = try balancer.waitForExit()
        _ = try fixture.stop()
        let seen = try ApnBridgeRestartTests.acceptedOnceEach(recordFile)
        // Lost: only what the first read and could not journal — nothing here.
        #expect(unjournaled == 0)
        #expect(seen.count == count, "\(seen.count), unjournaled \(unjournaled), \(stopped), \(summary)")
        print("store session lost: \(seen.count) of \(count) upstream once, 0 twice, \(unjournaled) unjournaled; the first: \(stopped); the second: \(summary)")
    }
}
