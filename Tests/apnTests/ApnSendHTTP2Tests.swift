import Foundation
import Testing
import TestSupport

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
    ])
    func badUsage(arguments: [String], message: String) throws {
        let apn = try ApnProcess(arguments)
        let (status, standardError) = try apn.waitForExit()
        #expect(status == 2)
        #expect(standardError.contains(message), "\(standardError)")
    }
}
