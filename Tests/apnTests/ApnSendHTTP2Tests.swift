import APNTLS
import Foundation
import Testing
import APNTestSupport
import APNTestTraits

/// `apn send --http2` against `apn mock-gateway --http2`, both as processes, with the
/// provider-token key `apn certs` writes.
@Suite("apn send --http2", .threadPerTest, .ownsChildProcesses)
struct ApnSendHTTP2Tests {
    static let delivered = String(repeating: "aa", count: 32)
    static let refused = String(repeating: "bb", count: 32)
    static let unregistered = String(repeating: "cc", count: 32)

    @Test("provider tokens: one accepted, BadDeviceToken and 410 Unregistered listed with their details, exit 1; recorded as sent")
    func providerTokens() throws {
        let recordFile = (NSTemporaryDirectory() as NSString).appendingPathComponent("apn-h2-\(UUID().uuidString).jsonl")
        defer { try? FileManager.default.removeItem(atPath: recordFile) }
        let fixture = try SendFixture(gatewayArguments: [
            "--http2", "--http2-reason", "\(Self.refused):BadDeviceToken",
            "--http2-unregistered", "\(Self.unregistered):1700000000000", "--record", recordFile,
        ])
        let key = (fixture.certs as NSString).appendingPathComponent("AuthKey_MOCKKEY001.p8")
        let (status, lines, standardError) = try fixture.sendHTTP2([
            "--key-id", "MOCKKEY001", "--team-id", "MOCKTEAM01", "--p8", key, "--topic", "com.example.app",
            "--token", Self.delivered, "--token", Self.refused, "--token", Self.unregistered,
            "--alert", "Hello", "--push-type", "alert", "--collapse-id", "c-1", "--priority", "5",
        ])
        #expect(status == 1, "\(standardError)")
        let refused = try #require(lines.first { $0["token"] as? String == Self.refused })
        #expect(refused["outcome"] as? String == "rejected")
        #expect(refused["http_status"] as? Int == 400)
        #expect(refused["reason"] as? String == "BadDeviceToken")
        let gone = try #require(lines.first { $0["token"] as? String == Self.unregistered })
        #expect(gone["outcome"] as? String == "rejected")
        #expect(gone["http_status"] as? Int == 410)
        #expect(gone["reason"] as? String == "Unregistered")
        #expect(gone["timestamp"] as? Int == 1_700_000_000_000)
        let summary = try #require(lines.last)
        #expect(summary["accepted"] as? Int == 1)
        #expect(summary["rejected"] as? Int == 2)
        let gatewaySummary = try fixture.stop()
        let http2 = try #require(gatewaySummary["http2"] as? [String: Any])
        #expect(http2["accepted"] as? Int == 1)
        let record = try jsonObject(
            try String(contentsOfFile: recordFile, encoding: .utf8)
                .split(separator: "\n").first.map(String.init) ?? "")
        #expect(record["protocol"] as? String == "http2")
        #expect(record["token"] as? String == Self.delivered)
        #expect(record["auth"] as? String == "token")
        #expect(record["key_id"] as? String == "MOCKKEY001")
        #expect(record["priority"] as? Int == 5)
        #expect(record["collapse_id"] as? String == "c-1")
        #expect(record["payload"] as? String == #"{"aps":{"alert":"Hello"}}"#)
    }

    @Test("the push certificate instead of a token: accepted, exit 0")
    func certificate() throws {
        let fixture = try SendFixture(gatewayArguments: ["--http2"])
        let (status, lines, standardError) = try fixture.sendHTTP2([
            "--certs", fixture.certs, "--token", Self.delivered, "--alert", "Hi", "--all",
        ])
        #expect(status == 0, "\(standardError)")
        #expect(lines.first?["outcome"] as? String == "accepted")
        #expect(lines.first?["http_status"] as? Int == 200)
        #expect(lines.last?["accepted"] as? Int == 1)
        #expect(try fixture.stop()["http2"] != nil)
    }

    /// Issue #26 row 6: Apple's device tokens are of variable length; only 32 bytes were sent.
    @Test("tokens of 8, 64 and 100 bytes are sent and accepted; 101 bytes is an invalid token line")
    func variableLengthTokens() throws {
        let fixture = try SendFixture(gatewayArguments: ["--http2"])
        let tokens = [
            "0123456789abcdef", String(repeating: "0123456789abcdef", count: 8), String(repeating: "0a", count: 100),
        ]
        let tooLong = String(repeating: "0a", count: 101)
        let (status, lines, standardError) = try fixture.sendHTTP2(
            ["--certs", fixture.certs, "--alert", "Hi"] + (tokens + [tooLong]).flatMap { ["--token", $0] })
        #expect(status == 1, "the 101-byte one: \(standardError)")
        let bad = try #require(lines.first { $0["token"] as? String == tooLong })
        #expect(bad["outcome"] as? String == "invalid_token")
        #expect((bad["error"] as? String)?.contains("must be 1 to 100 bytes, got 101") == true)
        let summary = try #require(lines.last)
        #expect(summary["accepted"] as? Int == 3)
        let http2 = try #require(try fixture.stop()["http2"] as? [String: Any])
        #expect(http2["accepted"] as? Int == 3)
    }

    /// Issue #26 row 5: `apn certs --environment` marks the client certificate as Apple's are.
    @Test("apn certs --environment: sandbox or production marks one; both marks both and lists the topics", arguments: [
        ("sandbox", [true, false], false), ("production", [false, true], false), ("both", [true, true], true),
    ])
    func certsEnvironment(name: String, marks: [Bool], listsTopics: Bool) throws {
        let directory = (NSTemporaryDirectory() as NSString).appendingPathComponent("apn-env-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(try ApnProcess(["certs", directory, "--environment", name]).waitForExit().status == 0)
        let pem = try #require(FileManager.default.contents(atPath: (directory as NSString).appendingPathComponent("client.pem")))
        let certificate = try #require(try TLSCertificate.certificates(fromPEM: Array(pem)).first)
        #expect([PushEnvironment.sandbox, .production].map { certificate.hasExtension(oid: $0.oid) } == marks)
        #expect(certificate.pushTopics == (listsTopics ? PushTopic.universal(bundleID: "com.example.app") : nil))
    }

    /// Issue #26 row 5: the mock is one environment (`--http2-environment`, sandbox by
    /// default). Our client refuses a certificate for the other one before connecting (the
    /// mock's 403 BadCertificateEnvironment is tested from the wire in HTTP2EnvironmentTests).
    @Test("a production-only certificate is delivered by the production mock (--production)")
    func productionMock() throws {
        let fixture = try SendFixture(
            gatewayArguments: ["--http2", "--http2-environment", "production"], certsArguments: ["--environment", "production"])
        let (status, lines, standardError) = try fixture.sendHTTP2([
            "--production", "--certs", fixture.certs, "--token", Self.delivered, "--alert", "Hi", "--all",
        ])
        #expect(status == 0, "\(standardError)")
        #expect(lines.first?["http_status"] as? Int == 200)
        let http2 = try #require(try fixture.stop()["http2"] as? [String: Any])
        #expect(http2["accepted"] as? Int == 1)
    }

    /// Issue #26 row 5: provider tokens may push only to their team's topics, when given.
    @Test("--team-topics: a topic outside the team's gets 400 TopicDisallowed, one inside is delivered")
    func teamTopics() throws {
        let fixture = try SendFixture(gatewayArguments: ["--http2", "--team-topics", "MOCKTEAM01:com.example.app,com.example.other"])
        let key = (fixture.certs as NSString).appendingPathComponent("AuthKey_MOCKKEY001.p8")
        for (topic, status) in [("com.example.third", 400), ("com.example.other", 200)] {
            let (_, lines, standardError) = try fixture.sendHTTP2([
                "--key-id", "MOCKKEY001", "--team-id", "MOCKTEAM01", "--p8", key, "--topic", topic,
                "--token", Self.delivered, "--alert", "Hi", "--all",
            ])
            #expect(lines.first?["http_status"] as? Int == status, "\(topic): \(standardError)")
            if status == 400 { #expect(lines.first?["reason"] as? String == "TopicDisallowed") }
        }
        let http2 = try #require(try fixture.stop()["http2"] as? [String: Any])
        #expect(http2["accepted"] as? Int == 1)
    }

    @Test("bad usage exits 2 with a clear message", arguments: [
        (["send", "--key-id", "K", "--token", String(repeating: "aa", count: 32)], "--key-id is for the HTTP/2 provider API"),
        (["send", "--http2", "--key-id", "K", "--token", "11"], "need all of --key-id, --team-id and --p8"),
        (["send", "--http2", "--key-id", "K", "--team-id", "T", "--p8", "x.p8", "--token", "11"], "need --topic"),
        (["send", "--http2", "--format", "frame", "--token", "11"], "--format is for the binary gateway"),
        (["send", "--http2", "--push-type", "bogus", "--token", "11"], "--push-type: \"bogus\""),
        (["send", "--http2", "--priority", "7", "--token", "11"], "takes 10, 5 or 1"),
        (["send", "--http2", "--provider-token", "jwt", "--key-id", "K", "--token", "11"], "--provider-token excludes --key-id"),
        (["send", "--store", "t.sqlite", "--token", String(repeating: "aa", count: 32)], "--store is for the HTTP/2 provider API"),
        (["send", "--http2", "--min-free", "1", "--token", "11"], "--min-free needs --store FILE"),
        (["mock-gateway", "--http2-reason", "aa:BadDeviceToken"], "--http2-reason needs --http2"),
        (["mock-gateway", "--http2", "--http2-reason", "aa:NotAReason"], "not one of Apple's reasons"),
        (["mock-gateway", "--http2", "--provider-key", "K:T"], "--provider-key needs KEYID:TEAMID:FILE"),
        (["mock-gateway", "--http2", "--team-topics", "TEAM"], "--team-topics needs TEAMID:TOPIC[,TOPIC...]"),
        (["mock-gateway", "--team-topics", "TEAM:a.b"], "--team-topics needs --http2"),
        (["mock-gateway", "--http2", "--http2-environment", "prod"], "not one of sandbox, production"),
        (["certs", "/tmp/never-written", "--environment", "staging"], "not one of sandbox, production, both"),
    ])
    func badUsage(arguments: [String], message: String) throws {
        let apn = try ApnProcess(arguments)
        let (status, standardError) = try apn.waitForExit()
        #expect(status == 2)
        #expect(standardError.contains(message), "\(standardError)")
    }
}
