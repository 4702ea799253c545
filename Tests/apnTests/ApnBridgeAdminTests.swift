import Foundation
import Glibc
import Testing
import APNTestSupport
import APNTestTraits

/// #42, a first slice: `apn bridge --admin HOST:PORT` serves `/healthz`, `/readyz` and
/// `/metrics` (the Prometheus text format, checked by a strict reading of it and, where
/// Debian's `prometheus` is installed, by `promtool check metrics`), refuses what it does
/// not serve, and says where it listens in the start line.
@Suite("apn bridge --admin", .threadPerTest, .ownsChildProcesses)
struct ApnBridgeAdminTests {
    @Test("health, readiness and metrics; 404, 405 and 431 for the rest")
    func endpoints() throws {
        let running = try ApnBridgeTests.Running(upstreamArguments: []) { fixture in
            ApnBridgeTests.tokenFlags(fixture) + ["--admin", "127.0.0.1:0"]
        }
        let admin = try #require(running.admin)
        let port = try #require(admin.split(separator: ":").last.flatMap { UInt16($0) })
        let (status, lines) = try running.send(["--token", ApnBridgeTests.delivered, "--alert", "hi"])
        #expect(status == 0, "\(lines)")

        #expect(try AdminClient.get(port, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n") == (200, "ok\n"))
        #expect(try AdminClient.get(port, "GET /readyz HTTP/1.1\r\n\r\n") == (200, "ready\n"))
        let metrics = try AdminClient.get(port, "GET /metrics HTTP/1.1\r\n\r\n")
        #expect(metrics.status == 200)
        #expect(metrics.body.contains(#"apn_bridge_notifications_delivered_total{tenant="com.example.app"} 1"#), "\(metrics.body)")
        #expect(metrics.body.contains("\nprocess_threads "))
        #expect(metrics.body.contains(#"apn_bridge_in_flight{tenant="com.example.app"} 0"#), "everything answered")
        #expect(metrics.body.contains(#"apn_bridge_connections{tenant="com.example.app"} "#))
        #expect(
            metrics.body.contains(#"apn_bridge_upstream_request_duration_seconds_count{tenant="com.example.app"} 1"#),
            "one answer timed")
        #expect(metrics.body.contains(#"apn_bridge_upstream_request_duration_seconds_bucket{tenant="com.example.app",le="+Inf"} 1"#))
        #expect(metrics.body.contains(#"apn_bridge_refusal_distance_notifications_count{tenant="com.example.app"} 0"#))
        #expect(metrics.body.contains(#"apn_feedback_outbox_pending{tenant="com.example.app"} 0"#))
        #expect(metrics.body.contains("\napn_bridge_max_in_flight 500000\n"), "the default bound")
        #expect(metrics.body.contains("\napn_bridge_held_notifications 0\n"))
        #expect(metrics.body.contains(#"apn_certificate_expiry_timestamp_seconds{certificate="server"} "#))
        #expect(metrics.body.contains(#"apn_certificate_expiry_timestamp_seconds{certificate="client_ca_0"} "#))
        try AdminClient.checkExposition(metrics.body)
        #expect(try AdminClient.get(port, "GET /nothing HTTP/1.1\r\n\r\n").status == 404)
        #expect(try AdminClient.get(port, "POST /metrics HTTP/1.1\r\n\r\n").status == 405)
        #expect(try AdminClient.get(port, "GET /metrics HTTP/1.1\r\nX: " + String(repeating: "a", count: 9_000) + "\r\n\r\n").status == 431)
        #expect(try AdminClient.get(port, "BAD\r\n\r\n").status == 400)
        _ = try running.stop()
    }
}
