import Foundation
import Testing
import APNTestSupport
import APNTestTraits

/// `apn bridge` as a process between `apn send` / `apn feedback` (binary, as a legacy
/// sender) and `apn mock-gateway --http2` (Apple's HTTP/2 API), all with the certificates
/// and provider key `apn certs` writes: docs/BRIDGE.md's quick start, checked.
@Suite("apn bridge", .threadPerTest, .ownsChildProcesses)
struct ApnBridgeTests {
    static let delivered = String(repeating: "ab", count: 32)
    static let refused = String(repeating: "cd", count: 32)
    static let unregistered = String(repeating: "ef", count: 32)

    /// The upstream (a mock with `--http2` and `upstreamArguments`) and a bridge in front
    /// of it with `bridgeArguments`, both started; the bridge's start line read.
    final class Running {
        let fixture: SendFixture
        let bridge: ApnProcess
        let gateway: String
        let feedback: String
        /// The admin listener's address, with `--admin`.
        let admin: String?

        init(upstreamArguments: [String] = [], bridgeArguments: (SendFixture) throws -> [String]) throws {
            fixture = try SendFixture(gatewayArguments: ["--http2"] + upstreamArguments)
            let upstream = try #require(fixture.http2Address)
            bridge = try ApnProcess(
                ["bridge", "--port", "0", "--feedback-port", "0", "--upstream", upstream, "--upstream-ca", fixture.path("certs/ca.pem")]
                    + (try bridgeArguments(fixture)))
            let started = try jsonObject(try bridge.nextLine())
            gateway = try #require(started["gateway"] as? String)
            feedback = try #require(started["feedback"] as? String)
            admin = started["admin"] as? String
            #expect(started.count == (admin == nil ? 2 : 3), "the start line is {gateway, feedback[, admin]}: \(started)")
        }

        /// The flags for the client certificate of the `apn certs` set in `certs` (default
        /// the fixture's), trusting the bridge's CA.
        func client(_ certs: String? = nil) -> [String] {
            guard let certs else { return ["--certs", fixture.certs] }
            return [
                "--cert", (certs as NSString).appendingPathComponent("client.pem"),
                "--key", (certs as NSString).appendingPathComponent("client.key"), "--ca", fixture.path("certs/ca.pem"),
            ]
        }

        /// `apn send` (binary) to the bridge with `certs`' client certificate.
        func send(certs: String? = nil, _ arguments: [String]) throws -> (status: Int32, lines: [[String: Any]]) {
            let apn = try ApnProcess(["send"] + client(certs) + ["--address", gateway] + arguments)
            let (status, standardError) = try apn.waitForExit()
            #expect(!standardError.contains("error"), "\(standardError)")
            return (status, try apn.remainingLines().map(jsonObject))
        }

        /// `apn feedback` once from the bridge's feedback port: the tuples' JSON lines.
        func readFeedback(certs: String? = nil) throws -> [[String: Any]] {
            let apn = try ApnProcess(["feedback", "--once"] + client(certs) + ["--address", feedback])
            let (status, standardError) = try apn.waitForExit()
            #expect(status == 0, "\(standardError)")
            return try apn.remainingLines().map(jsonObject)
        }

        /// SIGTERM: the bridge's summary line and its log, one JSON object a line.
        func stop() throws -> (summary: [String: Any], log: [[String: Any]], text: String) {
            bridge.send(SIGTERM)
            let (status, standardError) = try bridge.waitForExit()
            #expect(status == 0, "\(standardError)")
            let summary = try jsonObject(try #require(try bridge.remainingLines().last))
            let log = try standardError.split(separator: "\n").map { try jsonObject(String($0)) }
            return (summary, log, standardError)
        }
    }

    /// The one-tenant flags with the key `apn certs` wrote.
    static func tokenFlags(_ fixture: SendFixture, topic: String = "com.example.app") -> [String] {
        [
            "--certs", fixture.certs, "--topic", topic, "--key-id", "MOCKKEY001", "--team-id", "MOCKTEAM01",
            "--p8", fixture.path("certs/AuthKey_MOCKKEY001.p8"),
        ]
    }

    @Test("docs/BRIDGE.md's quick start: accepted silently, a refused token told as status 8 and the rest resent once, a 410 read back as feedback; summary and log as documented, no secret or token logged")
    func quickStart() throws {
        let running = try Running(upstreamArguments: [
            "--http2-reason", "\(Self.refused):BadDeviceToken", "--http2-unregistered", "\(Self.unregistered):1700000000000",
        ]) { fixture in Self.tokenFlags(fixture) + ["--store", fixture.path("tokens.sqlite")] }

        let (status, lines) = try running.send([
            "--token", Self.delivered, "--token", Self.refused, "--token", Self.unregistered, "--token", Self.delivered,
            "--alert", "Hello through the bridge", "--all",
        ])
        #expect(status == 1)
        #expect(lines.count == 5)
        #expect(lines[1]["outcome"] as? String == "rejected")
        #expect(lines[1]["status"] as? Int == 8)
        for index in [0, 2, 3] { #expect(lines[index]["outcome"] as? String == "accepted", "\(lines[index])") }
        #expect(lines.last?["rejected"] as? Int == 1)

        let tuples = try running.readFeedback()
        #expect(tuples.count == 1)
        #expect(tuples.first?["token"] as? String == Self.unregistered)
        #expect(tuples.first?["time"] as? Int == 1_700_000_000)
        #expect(try running.readFeedback().isEmpty, "each tuple is served once")

        let (summary, log, text) = try running.stop()
        #expect(summary["forwarded"] as? Int == 4, "the resends after the refusal are answered from the record")
        #expect(summary["delivered"] as? Int == 3)
        #expect(summary["resends_answered"] as? Int == 2)
        #expect((summary["refused"] as? [String: Int])?["8"] == 1)
        #expect((summary["refused_reasons"] as? [String: Int])?["BadDeviceToken"] == 1)
        #expect(summary["feedback_stored"] as? Int == 1)
        #expect(summary["feedback_served"] as? Int == 1)
        #expect((summary["tenants"] as? [String: Any])?["com.example.app"] != nil)

        let events = log.compactMap { $0["event"] as? String }
        #expect(events.first == "started")
        #expect(events.contains("connection_opened"))
        #expect(events.contains("stopping"))
        let refusal = try #require(log.first { $0["event"] as? String == "error_response" && $0["status"] as? Int == 8 })
        #expect(refusal["identifier"] as? Int == 2)
        let key = try String(contentsOfFile: running.fixture.path("certs/AuthKey_MOCKKEY001.p8"), encoding: .utf8)
        let keyBody = key.split(separator: "\n").dropFirst().first.map(String.init) ?? key
        for secret in [keyBody, Self.delivered, Self.refused, Self.unregistered] {
            #expect(!text.contains(secret), "the log holds a token or the key")
        }

        let upstream = try running.fixture.stop()
        let http2 = try #require(upstream["http2"] as? [String: Any])
        #expect(http2["accepted"] as? Int == 2, "each delivered notification reached upstream exactly once")
    }

    @Test("tenants from --config: each client is served only its own tenant's feedback")
    func tenantsFromConfig() throws {
        let running = try Running(upstreamArguments: ["--http2-unregistered", "\(Self.unregistered):1700000000000"]) {
            fixture in
            let other = fixture.path("other")
            #expect(try ApnProcess(["certs", other, "--topic", "com.other.app"]).waitForExit().status == 0)
            // One file with both CAs: each `apn certs` set has its own.
            let authorities = try String(contentsOfFile: fixture.path("certs/ca.pem"), encoding: .utf8)
                + String(contentsOfFile: fixture.path("other/ca.pem"), encoding: .utf8)
            let key = fixture.path("certs/AuthKey_MOCKKEY001.p8")
            let config = try fixture.file(
                "bridge.json",
                """
                {"tenants": [
                  {"name": "example", "uid": "com.example.app", "topic": "com.example.app",
                   "key_id": "MOCKKEY001", "team_id": "MOCKTEAM01", "p8": "\(key)"},
                  {"name": "other", "uid": ["com.other.app"], "topic": "com.other.app",
                   "key_id": "MOCKKEY001", "team_id": "MOCKTEAM01", "p8": "\(key)", "push_type": "alert"}
                ]}
                """)
            return [
                "--certs", fixture.certs, "--client-ca", try fixture.file("clients.pem", authorities), "--config", config,
            ]
        }
        let other = running.fixture.path("other")
        let (status, lines) = try running.send(certs: other, ["--token", Self.unregistered, "--alert", "Hi", "--all"])
        #expect(status == 0)
        #expect(lines.first?["outcome"] as? String == "accepted")
        #expect(try running.readFeedback().isEmpty, "example's client sees nothing of other's")
        let tuples = try running.readFeedback(certs: other)
        #expect(tuples.map { $0["token"] as? String } == [Self.unregistered])
        let (summary, _, _) = try running.stop()
        let tenants = try #require(summary["tenants"] as? [String: [String: Any]])
        #expect(tenants["other"]?["delivered"] as? Int == 1)
        #expect(tenants["example"]?["received"] as? Int == 0)
    }

    @Test("a client certificate no tenant names is refused, and logged so")
    func unknownClient() throws {
        let running = try Running { fixture in
            Self.tokenFlags(fixture, topic: "com.example.app") + ["--client-uid", "com.someone.else"]
        }
        let apn = try ApnProcess(
            ["send", "--certs", running.fixture.certs, "--address", running.gateway, "--token", Self.delivered, "--alert", "x"])
        let (status, _) = try apn.waitForExit()
        #expect(status != 0)
        let (summary, log, _) = try running.stop()
        #expect(summary["received"] as? Int == 0)
        #expect((summary["refused_connections"] as? Int ?? 0) >= 1)
        #expect(log.contains { $0["event"] as? String == "connection_refused" && $0["reason"] as? String == "unknown_client" })
    }

    @Test("bad usage exits 2 naming the problem", arguments: [
        (["bridge"], "needs --topic"),
        (["bridge", "--topic", "t"], "needs upstream credentials"),
        (["bridge", "--topic", "t", "--key-id", "K", "--upstream-cert", "c.pem"], "not a mix"),
        (["bridge", "--topic", "t", "--key-id", "K", "--team-id", "T", "--p8", "/nonexistent/AuthKey.p8"], "/nonexistent/AuthKey.p8"),
        (["bridge", "--config", "/nonexistent.json"], "--config /nonexistent.json: no such file"),
        (["bridge", "--config", "x.json", "--topic", "t"], "--config x.json: no such file"),
        (["bridge", "--port", "70000"], "--port"),
        (["bridge", "--topic", "t", "--key-id", "K", "--team-id", "T", "--p8", "x.p8", "--push-type", "bogus"], "--push-type: \"bogus\""),
        (["bridge", "extra"], "takes no arguments"),
        (["bridge", "--tls-max", "1.1"], "--tls-max: \"1.1\" is not 1.2 or 1.3"),
        (["bridge", "--resend-retention", "-1"], "--resend-retention"),
    ])
    func badUsage(arguments: [String], message: String) throws {
        let apn = try ApnProcess(arguments)
        let (status, standardError) = try apn.waitForExit()
        #expect(status == 2, "\(standardError)")
        #expect(standardError.contains(message), "\(standardError)")
    }

    @Test("--help lists every flag the parser takes")
    func help() throws {
        let apn = try ApnProcess(["bridge", "--help"])
        let (status, _) = try apn.waitForExit()
        #expect(status == 0)
        let text = try apn.remainingLines().joined(separator: "\n")
        for flag in [
            "--host", "--port", "--feedback-port", "--certs", "--server-cert", "--server-key", "--client-ca", "--upstream",
            "--sandbox", "--upstream-ca", "--max-streams", "--topic", "--key-id", "--team-id", "--p8", "--upstream-cert",
            "--upstream-key", "--push-type", "--client-uid", "--client-fingerprint", "--tenant", "--config", "--store",
            "--window", "--max-connections", "--idle-timeout", "--grace", "--resend-retention", "--resend-capacity",
            "--session-tickets", "--tls-max",
        ] {
            #expect(text.contains(flag + " "), "\(flag) is not in --help")
        }
    }
}
