import Foundation
import Testing
import APNTestSupport
import APNTestTraits

/// `apn send --http2 --event …` (#44): a Live Activity start with iOS 18's keys built from
/// flags, delivered to `apn mock-gateway --http2` with the payload's exact bytes recorded;
/// Apple's rules for a start, the topic's suffix and the flags' own mistakes refused with
/// exit 2 before anything is sent.
@Suite("apn send --http2: Live Activity flags", .threadPerTest, .ownsChildProcesses)
struct ApnSendLiveActivityTests {
    static let token = String(repeating: "ab", count: 32)
    static let topic = "com.example.app.push-type.liveactivity"

    @Test("a start with every key: liveactivity push type, Apple's topic, the aps keys in order, recorded byte for byte")
    func startDelivered() throws {
        let recordFile = (NSTemporaryDirectory() as NSString).appendingPathComponent("apn-la-\(UUID().uuidString).jsonl")
        defer { try? FileManager.default.removeItem(atPath: recordFile) }
        let fixture = try SendFixture(gatewayArguments: ["--http2", "--record", recordFile])
        let key = (fixture.certs as NSString).appendingPathComponent("AuthKey_MOCKKEY001.p8")
        let (status, lines, standardError) = try fixture.sendHTTP2([
            "--key-id", "MOCKKEY001", "--team-id", "MOCKTEAM01", "--p8", key, "--topic", Self.topic,
            "--token", Self.token, "--event", "start", "--alert", "Kick-off", "--attributes-type", "MatchAttributes",
            "--attributes", #"{"home":"Lyon"}"#, "--content-state", #"{"score":"0-0"}"#, "--timestamp", "1700000000",
            "--stale-date", "1700007200", "--input-push-token", "--input-push-channel", "dHbSRbbq7h5wXqSCjhvzAA==",
            "--all",
        ])
        #expect(status == 0, "\(standardError)")
        #expect(lines.first?["outcome"] as? String == "accepted")
        _ = try fixture.stop()
        let record = try jsonObject(
            try String(contentsOfFile: recordFile, encoding: .utf8).split(separator: "\n").first.map(String.init) ?? "")
        #expect(record["push_type"] as? String == "liveactivity")
        #expect(record["topic"] as? String == Self.topic)
        #expect(
            record["payload"] as? String
                == #"{"aps":{"alert":"Kick-off","timestamp":1700000000,"event":"start","content-state":{"score":"0-0"},"stale-date":1700007200,"attributes-type":"MatchAttributes","attributes":{"home":"Lyon"},"input-push-token":1,"input-push-channel":"dHbSRbbq7h5wXqSCjhvzAA=="}}"#
        )
    }

    @Test("bad usage exits 2 before sending, naming what to add", arguments: [
        (["--event", "start", "--content-state", "{}"], "needs an alert, attributes-type, attributes"),
        (["--event", "start", "--alert", "A", "--attributes", "{}"], "add --attributes-type NAME"),
        (["--event", "update", "--topic", "com.example.app"], "--topic com.example.app.push-type.liveactivity"),
        (["--event", "pause"], "--event: \"pause\" is not one of start, update, end"),
        (["--content-state", "{}"], "give --event start|update|end too"),
        (["--event", "end", "--attributes-type", "T"], "--attributes-type is for --event start, not end"),
        (["--event", "update", "--content-state", "[1]"], "--content-state must be a JSON object"),
        (["--event", "update", "--content-state", "{"], "--content-state: invalid JSON"),
        (["--event", "update", "--payload", "{}"], "--event cannot be combined with --payload"),
    ])
    func badUsage(arguments: [String], message: String) throws {
        let apn = try ApnProcess(
            ["send", "--http2", "--certs", "/nonexistent", "--address", "127.0.0.1:1", "--token", Self.token] + arguments)
        let (status, standardError) = try apn.waitForExit()
        #expect(status == 2, "\(standardError)")
        #expect(standardError.contains(message), "\(standardError)")
    }

    @Test("without --http2 a Live Activity flag is bad usage: the binary gateway has no such push")
    func binaryRefused() throws {
        let apn = try ApnProcess(["send", "--certs", "/nonexistent", "--token", Self.token, "--event", "update"])
        let (status, standardError) = try apn.waitForExit()
        #expect(status == 2)
        #expect(standardError.contains("--event is for the HTTP/2 provider API: add --http2"), "\(standardError)")
    }
}
