import Foundation
import Glibc
import Testing
import TestSupport

/// #42, a first slice: `apn bridge --admin HOST:PORT` serves `/healthz`, `/readyz` and
/// `/metrics` (the Prometheus text format, checked by a strict reading of it and, where
/// Debian's `prometheus` is installed, by `promtool check metrics`), refuses what it does
/// not serve, and says where it listens in the start line.
@Suite("apn bridge --admin", .threadPerTest, .ownsChildProcesses)
struct ApnBridgeAdminTests {
    /// One request on a fresh connection; the status and the body (the server closes).
    static func get(_ port: UInt16, _ request: String) throws -> (status: Int, body: String) {
        let descriptor = try PlainSockets.connect(port: port)
        defer { close(descriptor) }
        try PlainSockets.write(Array(request.utf8), to: descriptor)
        var response: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4_096)
        var pollEntry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        while poll(&pollEntry, 1, 10_000) > 0 {
            let count = read(descriptor, &buffer, buffer.count)
            guard count > 0 else { break }
            response += buffer[..<count]
        }
        let text = String(decoding: response, as: UTF8.self)
        let status = text.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        let body = text.range(of: "\r\n\r\n").map { String(text[$0.upperBound...]) } ?? ""
        return (status, body)
    }

    @Test("health, readiness and metrics; 404, 405 and 431 for the rest")
    func endpoints() throws {
        let running = try ApnBridgeTests.Running(upstreamArguments: []) { fixture in
            ApnBridgeTests.tokenFlags(fixture) + ["--admin", "127.0.0.1:0"]
        }
        let admin = try #require(running.admin)
        let port = try #require(admin.split(separator: ":").last.flatMap { UInt16($0) })
        let (status, lines) = try running.send(["--token", ApnBridgeTests.delivered, "--alert", "hi"])
        #expect(status == 0, "\(lines)")

        #expect(try Self.get(port, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n") == (200, "ok\n"))
        #expect(try Self.get(port, "GET /readyz HTTP/1.1\r\n\r\n") == (200, "ready\n"))
        let metrics = try Self.get(port, "GET /metrics HTTP/1.1\r\n\r\n")
        #expect(metrics.status == 200)
        #expect(metrics.body.contains(#"apn_bridge_notifications_delivered_total{tenant="com.example.app"} 1"#), "\(metrics.body)")
        #expect(metrics.body.contains("\nprocess_threads "))
        #expect(metrics.body.contains(#"apn_bridge_in_flight{tenant="com.example.app"} 0"#), "everything answered")
        #expect(metrics.body.contains(#"apn_bridge_connections{tenant="com.example.app"} "#))
        #expect(metrics.body.contains(#"apn_certificate_expiry_timestamp_seconds{certificate="server"} "#))
        #expect(metrics.body.contains(#"apn_certificate_expiry_timestamp_seconds{certificate="client_ca_0"} "#))
        try Self.checkExposition(metrics.body)
        #expect(try Self.get(port, "GET /nothing HTTP/1.1\r\n\r\n").status == 404)
        #expect(try Self.get(port, "POST /metrics HTTP/1.1\r\n\r\n").status == 405)
        #expect(try Self.get(port, "GET /metrics HTTP/1.1\r\nX: " + String(repeating: "a", count: 9_000) + "\r\n\r\n").status == 431)
        #expect(try Self.get(port, "BAD\r\n\r\n").status == 400)
        _ = try running.stop()
    }

    /// A strict reading of the text format: every family's HELP and TYPE before its samples,
    /// families not interleaved, every sample `name{label="value",…} number`; then
    /// `promtool check metrics` where installed.
    static func checkExposition(_ text: String) throws {
        var seen: Set<String> = []
        var current: String?
        let sample = #/^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\]|\\.)*",?)*\})? (-?[0-9.eE+]+|NaN|\+Inf|-Inf)$/#
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
            if line.hasPrefix("# HELP ") {
                let name = String(line.dropFirst(7).split(separator: " ")[0])
                #expect(!seen.contains(name), "\(name) described twice")
                seen.insert(name)
                current = name
            } else if line.hasPrefix("# TYPE ") {
                #expect(line.split(separator: " ").dropFirst(2).first.map(String.init) == current, "TYPE after its HELP: \(line)")
            } else {
                let match = try #require(try sample.wholeMatch(in: String(line)), "not a sample: \(line)")
                #expect(String(match.1) == current, "a sample outside its family: \(line)")
            }
        }
        #expect(text.hasSuffix("\n"))
        let promtool = "/usr/bin/promtool"
        guard FileManager.default.isExecutableFile(atPath: promtool) else { return }
        let check = try ApnProcess(["check", "metrics"], input: Array(text.utf8), executable: promtool)
        let (status, standardError) = try check.waitForExit()
        let output = try check.remainingLines()
        #expect(status == 0, "promtool: \(standardError) \(output)")
    }
}
