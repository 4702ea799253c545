import APNTLS
import APNWire
import Foundation
import Glibc
import Testing
import APNTestSupport
import APNTestTraits

/// #42 item 3: SIGHUP reloads `apn bridge`'s configuration and re-reads every certificate
/// and key. Connections already open carry on undisturbed; new ones get the new server
/// certificate; what is forwarded from then on carries a token signed with the new key; a
/// configuration that fails to load is refused with one log line and the old one kept.
@Suite("apn bridge: SIGHUP reloads", .threadPerTest, .ownsChildProcesses)
struct ApnBridgeReloadTests {
    /// Notification tokens `from..<to`, as hex lines, 32 bytes each.
    static func tokens(_ range: Range<Int>) -> String {
        range.map { String(repeating: "ab", count: 28) + String(format: "%08x", $0) }.joined(separator: "\n") + "\n"
    }

    /// Copies `name` from `source` over `target`'s, replaced in one rename.
    static func replace(_ name: String, from source: String, into target: String) throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: (source as NSString).appendingPathComponent(name)))
        try data.write(to: URL(fileURLWithPath: (target as NSString).appendingPathComponent(name)), options: .atomic)
    }

    /// The bridge's configuration: its own certificate folder, one tenant signing with `keyID`.
    static func config(certs: String, keyID: String, extra: String = "") -> String {
        """
        {"certs": "\(certs)", "admin": "127.0.0.1:0"\(extra),
         "tenants": [{"name": "app", "uid": "com.example.app", "topic": "com.example.app",
                      "key_id": "\(keyID)", "team_id": "MOCKTEAM01", "p8": "\(certs)/AuthKey_MOCKKEY001.p8"}]}
        """
    }

    @Test("the server certificate and the tenant's .p8 rotated while notifications flow: none lost, none twice")
    func rotation() throws {
        // The second set: a server certificate from another CA, another signing key.
        let fresh = (NSTemporaryDirectory() as NSString).appendingPathComponent("apnTests-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(atPath: fresh) }
        let original = fresh + "-original"
        defer { try? FileManager.default.removeItem(atPath: original) }
        #expect(try ApnProcess(["certs", fresh]).waitForExit().status == 0)
        #expect(try ApnProcess(["certs", original]).waitForExit().status == 0)
        let record = fresh + ".record"
        defer { try? FileManager.default.removeItem(atPath: record) }
        // The upstream holds every answer 1 s, so what the first sender wrote is in flight
        // across the reload; it accepts both keys.
        let fixture = try SendFixture(gatewayArguments: [
            "--http2", "--http2-delay-ms", "1000", "--record", record,
            "--provider-key", "MOCKKEY001:MOCKTEAM01:\(original)/AuthKey_MOCKKEY001.pub.pem",
            "--provider-key", "NEWKEY0002:MOCKTEAM01:\(fresh)/AuthKey_MOCKKEY001.pub.pem",
        ])
        let certs = fixture.path("bridge-certs")
        try FileManager.default.createDirectory(atPath: certs, withIntermediateDirectories: true)
        for name in ["server.pem", "server.key", "ca.pem"] { try Self.replace(name, from: fixture.certs, into: certs) }
        try Self.replace("AuthKey_MOCKKEY001.p8", from: original, into: certs)
        let configPath = try fixture.file("bridge.json", Self.config(certs: certs, keyID: "MOCKKEY001"))
        let upstream = try #require(fixture.http2Address)
        let bridge = try ApnProcess([
            "bridge", "--port", "0", "--feedback-port", "0", "--upstream", upstream,
            "--upstream-ca", fixture.path("certs/ca.pem"), "--config", configPath,
        ])
        let started = try jsonObject(try bridge.nextLine())
        let gateway = try #require(started["gateway"] as? String)
        let adminPort = try #require((started["admin"] as? String)?.split(separator: ":").last.flatMap { UInt16($0) })

        // The first sender: 3,000 on one connection, open across the reload. It trusts both
        // CAs: on a loaded machine it may time out waiting and connect again, to the new
        // certificate.
        let bothCAs = fixture.path("both-ca.pem")
        let caBundle = try String(contentsOfFile: fixture.path("certs/ca.pem"), encoding: .utf8)
            + String(contentsOfFile: "\(fresh)/ca.pem", encoding: .utf8)
        try caBundle.write(toFile: bothCAs, atomically: true, encoding: .utf8)
        let first = try ApnProcess(
            [
                "send", "--cert", fixture.path("certs/client.pem"), "--key", fixture.path("certs/client.key"),
                "--ca", bothCAs, "--address", gateway, "--tokens-file", "-", "--alert", "before",
            ],
            input: Array(Self.tokens(0..<3_000).utf8))
        let received = #/apn_bridge_notifications_received_total\{tenant="app"\} ([0-9]+)/#
        let deadline = Date().addingTimeInterval(60)
        var seen = 0
        while seen < 1_000, Date() < deadline {
            let metrics = try AdminClient.get(adminPort, "GET /metrics HTTP/1.1\r\n\r\n").body
            seen = (try received.firstMatch(in: metrics)).flatMap { Int($0.1) } ?? 0
        }
        #expect(seen >= 1_000, "the first sender's notifications are flowing")

        // Rotate: another server certificate and key in place, another .p8 under a new key id.
        try Self.replace("server.pem", from: fresh, into: certs)
        try Self.replace("server.key", from: fresh, into: certs)
        try Self.replace("AuthKey_MOCKKEY001.p8", from: fresh, into: certs)
        try Self.config(certs: certs, keyID: "NEWKEY0002").write(toFile: configPath, atomically: true, encoding: .utf8)
        bridge.send(SIGHUP)
        #expect(bridge.waitForStandardError { $0.contains(#""event":"reloaded""#) }, "the reload is logged")

        // A new connection sees the new certificate: verified against the new CA only.
        let second = try ApnProcess([
            "send", "--cert", fixture.path("certs/client.pem"), "--key", fixture.path("certs/client.key"),
            "--ca", "\(fresh)/ca.pem", "--address", gateway, "--tokens-file", "-", "--alert", "after",
        ], input: Array(Self.tokens(3_000..<4_000).utf8))
        let (secondStatus, secondError) = try second.waitForExit()
        #expect(secondStatus == 0, "\(secondError)")
        let (firstStatus, firstError) = try first.waitForExit()
        let firstLines = try first.remainingLines()
        #expect(firstStatus == 0, "\(firstError) \(firstLines)")

        bridge.send(SIGTERM)
        let (status, log) = try bridge.waitForExit()
        #expect(status == 0, "\(log)")
        let summary = try jsonObject(try #require(try bridge.remainingLines().last))
        #expect(summary["delivered"] as? Int == 4_000, "\(log)")
        _ = try fixture.stop()

        let lines = try String(contentsOfFile: record, encoding: .utf8).split(separator: "\n").map { try jsonObject(String($0)) }
        let tokens = lines.compactMap { $0["token"] as? String }
        #expect(lines.count == 4_000 && Set(tokens).count == 4_000, "each once: \(lines.count) lines, \(Set(tokens).count) tokens \(lines.first ?? [:])")
        let after = lines.filter { ($0["payload"] as? String)?.contains(#""after""#) == true }
        #expect(after.count == 1_000 && after.allSatisfy { $0["key_id"] as? String == "NEWKEY0002" }, "signed with the new key")
        #expect(lines.contains { $0["key_id"] as? String == "MOCKKEY001" }, "the old key before the reload")
        #expect(log.contains(#""reloaded":["app"]"#), "\(log)")
    }

    @Test("tenants added and removed apply to new connections; a setting that needs a restart is named, not applied")
    func tenants() throws {
        let record = (NSTemporaryDirectory() as NSString).appendingPathComponent("apnTests-\(UUID().uuidString).record")
        defer { try? FileManager.default.removeItem(atPath: record) }
        let running = try ApnBridgeTests.Running(upstreamArguments: ["--record", record]) { fixture in
            ["--config", try fixture.file("bridge.json", Self.config(certs: fixture.certs, keyID: "MOCKKEY001"))]
        }
        let fixture = running.fixture
        let client = try #require(try TLSCertificate.certificates(fromPEM: Array(Data(contentsOf: URL(fileURLWithPath: fixture.path("certs/client.pem"))))).first)
        let other = """
            {"name": "other", "fingerprints": ["\(hexString(client.sha256Fingerprint))"], "topic": "com.other.app",
             "key_id": "MOCKKEY001", "team_id": "MOCKTEAM01", "p8": "\(fixture.certs)/AuthKey_MOCKKEY001.p8"}
            """
        func reload(_ tenants: String, extra: String = "") throws -> [String: Any] {
            let json = #"{"certs": "\#(fixture.certs)", "admin": "127.0.0.1:0"\#(extra), "tenants": [\#(tenants)]}"#
            try json.write(toFile: fixture.path("bridge.json"), atomically: true, encoding: .utf8)
            let before = running.bridge.standardErrorSoFar.components(separatedBy: #""event":"reloaded""#).count
            running.bridge.send(SIGHUP)
            #expect(running.bridge.waitForStandardError { $0.components(separatedBy: #""event":"reloaded""#).count > before })
            let line = running.bridge.standardErrorSoFar.split(separator: "\n").last { $0.contains(#""event":"reloaded""#) }
            return try jsonObject(String(try #require(line)))
        }
        let app = #"{"name": "app", "uid": "com.example.app", "topic": "com.example.app", "key_id": "MOCKKEY001", "team_id": "MOCKTEAM01", "p8": "\#(fixture.certs)/AuthKey_MOCKKEY001.p8"}"#

        #expect(try running.send(["--token", ApnBridgeTests.delivered, "--alert", "one"]).status == 0)
        let added = try reload(app + ", " + other, extra: #", "window": 5"#)
        #expect(added["added"] as? [String] == ["other"] && added["reloaded"] as? [String] == ["app"])
        #expect(added["needs_restart"] as? [String] == ["window"])
        #expect(try running.send(["--token", ApnBridgeTests.delivered, "--alert", "two"]).status == 0, "the client is other's now")
        let removed = try reload(app)
        #expect(removed["removed"] as? [String] == ["other"])
        #expect(try running.send(["--token", ApnBridgeTests.delivered, "--alert", "three"]).status == 0, "app's again")
        let (summary, _, _) = try running.stop()
        let byTenant = try #require(summary["tenants"] as? [String: [String: Any]])
        #expect(byTenant["app"]?["delivered"] as? Int == 2 && byTenant["other"]?["delivered"] as? Int == 1, "\(byTenant)")
        _ = try fixture.stop()
        let topics = try String(contentsOfFile: record, encoding: .utf8).split(separator: "\n").map { try jsonObject(String($0))["topic"] as? String }
        #expect(topics == ["com.example.app", "com.other.app", "com.example.app"])
    }

    @Test("a configuration that fails to load is refused with one log line; the old one serves on")
    func refused() throws {
        let running = try ApnBridgeTests.Running { fixture in
            let path = try fixture.file("bridge.json", Self.config(certs: fixture.certs, keyID: "MOCKKEY001"))
            return ["--config", path]
        }
        let path = running.fixture.path("bridge.json")
        try #"{"tenants": [{"name": "app"}]}"#.write(toFile: path, atomically: true, encoding: .utf8)
        running.bridge.send(SIGHUP)
        #expect(running.bridge.waitForStandardError { $0.contains(#""event":"reload_refused""#) })
        let (status, lines) = try running.send(["--token", ApnBridgeTests.delivered, "--alert", "hi"])
        #expect(status == 0, "\(lines)")
        let (summary, log, _) = try running.stop()
        #expect(summary["delivered"] as? Int == 1)
        let refusals = log.filter { $0["event"] as? String == "reload_refused" }
        #expect(refusals.count == 1)
        #expect((refusals.first?["reason"] as? String)?.contains("tenants[0]") == true, "\(refusals)")
    }
}
