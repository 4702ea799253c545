import APNTLS
import APNWire
import Foundation
import Testing
import APNTestSupport
import APNTestTraits

/// #42 for `apn mock-gateway --admin HOST:PORT`: the start line names the listener, `/healthz`
/// and `/readyz` answer while it serves, `/metrics` (checked by ``AdminClient``'s strict
/// reading and promtool) has the counts its summary gives at the end, and a stop turns
/// `/readyz` to 503 until the process is gone.
@Suite("apn mock-gateway --admin", .threadPerTest, .ownsChildProcesses)
struct ApnMockGatewayAdminTests {
    typealias Certificates = ApnMockGatewayFlagTests.Certificates

    @Test("accepted, refused by status, connections and feedback served in /metrics, as the summary counts them; flags from --config")
    func counts() throws {
        let certificates = try Certificates()
        // Notification 2 of frames(1...3) goes to the token 02…02.
        let refused = String(repeating: "02", count: 32)
        // Half of it from --config (a repeatable flag as an array, a switch as true).
        let config = certificates.directory + "/mock.json"
        try #"{"reject": ["\#(refused):7"], "http2": true, "admin": "127.0.0.1:0"}"#
            .write(toFile: config, atomically: true, encoding: .utf8)
        let gateway = try ApnProcess([
            "mock-gateway", "--certs", certificates.directory, "--config", config,
            "--feedback", "\(String(repeating: "ab", count: 32)):1700000000",
        ])
        let started = try jsonObject(try gateway.nextLine())
        let port = try AdminClient.port(started["admin"] as? String)
        #expect(try AdminClient.get(port, path: "/healthz") == (200, "ok\n"))
        #expect(try AdminClient.get(port, path: "/readyz") == (200, "ready\n"))

        let client = try certificates.connect(port: try AdminClient.port(started["gateway"] as? String))
        try client.send(ApnMockGatewayFlagTests.frames(1...3))
        #expect(hexString(try client.readToEnd().bytes) == "080700000002", "status 7 for notification 2")
        client.connection.close()
        let feedback = try certificates.connect(port: try AdminClient.port(started["feedback"] as? String))
        #expect(try feedback.readToEnd().bytes.count == 38, "one tuple: time, length, 32-byte token")
        feedback.connection.close()

        let metrics = try AdminClient.get(port, path: "/metrics")
        #expect(metrics.status == 200)
        let value = { (sample: String) in AdminClient.value(metrics.body, sample) }
        #expect(value(#"apn_mock_notifications_accepted_total{gateway="binary"}"#) == 1, "\(metrics.body)")
        #expect(value(#"apn_mock_notifications_refused_total{gateway="binary",status="7"}"#) == 1)
        #expect(value(#"apn_mock_connections_total{gateway="binary"}"#) == 1)
        #expect(value("apn_mock_feedback_connections_total") == 1)
        #expect(value("apn_mock_feedback_tuples_served_total") == 1)
        #expect(value("apn_mock_confirmation_markers_total") == 0)
        #expect(value(#"apn_mock_connections_refused_total{gateway="binary",kind="handshake_failure"}"#) == 0)
        #expect(value(#"apn_mock_notifications_accepted_total{gateway="http2"}"#) == 0, "--http2: its families too")
        #expect(value(#"apn_mock_connections_refused_total{gateway="http2",kind="alpn_refused"}"#) == 0)
        #expect(value(#"apn_mock_http2_connection_faults_total{cause="goaway"}"#) == 0)
        #expect(value("process_open_fds") ?? 0 > 0)
        try AdminClient.checkExposition(metrics.body)

        gateway.send(SIGTERM)
        let summary = try jsonObject(try gateway.nextLine())
        #expect(summary["accepted"] as? Int == 1 && (summary["rejected"] as? [String: Any])?["7"] as? Int == 1, "\(summary)")
        _ = try AdminClient.expectStops(gateway, adminPort: port)
    }

    @Test("without --http2 no apn_mock_http2_ family; --admin is in --help; a malformed address is a usage error")
    func binaryOnlyAndFlag() throws {
        let certificates = try Certificates()
        let gateway = try ApnProcess(["mock-gateway", "--certs", certificates.directory, "--admin", "127.0.0.1:0"])
        let started = try jsonObject(try gateway.nextLine())
        let port = try AdminClient.port(started["admin"] as? String)
        let metrics = try AdminClient.get(port, path: "/metrics").body
        #expect(AdminClient.value(metrics, #"apn_mock_notifications_accepted_total{gateway="binary"}"#) == 0)
        #expect(!metrics.contains("apn_mock_http2_") && !metrics.contains(#"gateway="http2""#), "\(metrics)")
        try AdminClient.checkExposition(metrics)
        gateway.send(SIGTERM)
        _ = try gateway.nextLine()
        _ = try AdminClient.expectStops(gateway, adminPort: port)

        let help = try ApnProcess(["mock-gateway", "--help"])
        #expect(try help.waitForExit().status == 0)
        #expect(try help.remainingLines().contains { $0.contains("--admin HOST:PORT") })
        let bad = try ApnProcess(["mock-gateway", "--admin", "127.0.0.1"])
        let (status, error) = try bad.waitForExit()
        #expect(status == 2 && error.contains("--admin"), "\(error)")
    }
}
