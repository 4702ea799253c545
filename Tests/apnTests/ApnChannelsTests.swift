import Foundation
import Testing
import APNTestSupport
import APNTestTraits

/// `apn channels create|get|list|delete` and `apn send --http2 --channel ID` against
/// `apn mock-gateway --http2`, with provider tokens from the `.p8` key `apn certs` wrote and
/// with the client certificate: the channel's life, a broadcast recorded byte for byte,
/// Apple's refusals with their reason and `apns-request-id`, and bad usage exiting 2.
@Suite("apn channels and apn send --channel", .threadPerTest, .ownsChildProcesses)
struct ApnChannelsTests {
    static let bundleID = "com.example.app"

    /// `apn channels ARGUMENTS --ca … --address HTTP2` with provider tokens: status, JSON
    /// lines, standard error.
    static func channels(
        _ fixture: SendFixture, _ arguments: [String], certificate: Bool = false
    ) throws -> (status: Int32, lines: [[String: Any]], standardError: String) {
        let address = try #require(fixture.http2Address)
        let credentials =
            certificate
            ? ["--certs", fixture.certs]
            : [
                "--ca", (fixture.certs as NSString).appendingPathComponent("ca.pem"), "--key-id", "MOCKKEY001",
                "--team-id", "MOCKTEAM01", "--p8", (fixture.certs as NSString).appendingPathComponent("AuthKey_MOCKKEY001.p8"),
            ]
        let apn = try ApnProcess(["channels"] + arguments + credentials + ["--address", address, "--topic", bundleID])
        let (status, standardError) = try apn.waitForExit(timeout: 30)
        return (status, try apn.remainingLines().map(jsonObject), standardError)
    }

    @Test("create, get, list, broadcast, delete; the broadcast recorded; a deleted channel refused")
    func aChannelsLife() throws {
        let recordFile = (NSTemporaryDirectory() as NSString).appendingPathComponent("apn-ch-\(UUID().uuidString).jsonl")
        defer { try? FileManager.default.removeItem(atPath: recordFile) }
        let fixture = try SendFixture(gatewayArguments: ["--http2", "--record", recordFile])

        let created = try Self.channels(fixture, ["create", "--message-storage-policy", "1"])
        #expect(created.status == 0, "\(created.standardError)")
        let id = try #require(created.lines.first?["channel_id"] as? String)
        #expect(created.lines.first?["message_storage_policy"] as? Int == 1)

        let read = try Self.channels(fixture, ["get", id], certificate: true)
        #expect(read.status == 0, "\(read.standardError)")
        #expect(read.lines.first?["message_storage_policy"] as? Int == 1)
        #expect(read.lines.first?["push_type"] as? String == "LiveActivity")
        let listed = try Self.channels(fixture, ["list"])
        #expect(listed.lines.compactMap { $0["channel_id"] as? String } == [id])

        let key = (fixture.certs as NSString).appendingPathComponent("AuthKey_MOCKKEY001.p8")
        let sent = try fixture.sendHTTP2([
            "--key-id", "MOCKKEY001", "--team-id", "MOCKTEAM01", "--p8", key, "--topic", Self.bundleID,
            "--channel", id, "--event", "update", "--content-state", #"{"score":"1-0"}"#, "--timestamp", "1700000000",
            "--expiry", "1900000000", "--priority", "5",
        ])
        #expect(sent.status == 0, "\(sent.standardError)")
        let line = try #require(sent.lines.first)
        #expect(line["channel_id"] as? String == id && line["outcome"] as? String == "accepted")
        #expect(line["http_status"] as? Int == 200 && (line["unique_id"] as? String)?.isEmpty == false)
        #expect(sent.lines.last?["broadcast"] as? Bool == true && sent.lines.last?["accepted"] as? Int == 1)

        let deleted = try Self.channels(fixture, ["delete", id])
        #expect(deleted.status == 0 && deleted.lines.first?["deleted"] as? Bool == true)
        let gone = try Self.channels(fixture, ["get", id])
        #expect(gone.status == 1)
        #expect(gone.standardError.contains("ChannelNotRegistered") && gone.standardError.contains("apns-request-id"))
        let refused = try fixture.sendHTTP2([
            "--key-id", "MOCKKEY001", "--team-id", "MOCKTEAM01", "--p8", key, "--topic", Self.bundleID,
            "--channel", id, "--event", "end", "--timestamp", "1700000001",
        ])
        #expect(refused.status == 1)
        #expect(refused.lines.first?["outcome"] as? String == "rejected")
        #expect(refused.lines.first?["reason"] as? String == "ChannelNotRegistered")
        _ = try fixture.stop()

        let records = try String(contentsOfFile: recordFile, encoding: .utf8).split(separator: "\n").map {
            try jsonObject(String($0))
        }
        let broadcast = try #require(records.first { $0["kind"] as? String == "broadcast" })
        #expect(broadcast["channel_id"] as? String == id)
        #expect(broadcast["payload"] as? String == #"{"aps":{"timestamp":1700000000,"event":"update","content-state":{"score":"1-0"}}}"#)
        #expect(broadcast["expiration"] as? Int == 1_900_000_000 && broadcast["priority"] as? Int == 5)
    }

    @Test("bad usage exits 2 before anything is sent", arguments: [
        (["channels", "create"], "give --message-storage-policy 0"),
        (["channels", "create", "--message-storage-policy", "2"], "is not 0 or 1"),
        (["channels", "get"], "get takes one channel ID"),
        (["channels", "delete", "a", "b"], "delete takes one channel ID"),
        (["channels", "get", "not base64!"], "BadChannelId"),
        (["channels", "frobnicate"], "unknown subcommand"),
        (["send", "--http2", "--channel", "AAAA", "--event", "start", "--alert", "A", "--attributes-type", "T", "--attributes", "{}"], "cannot start"),
        (["send", "--http2", "--channel", "AAAA", "--token", String(repeating: "ab", count: 32), "--event", "update"], "--token does not go with --channel"),
        (["send", "--http2", "--channel", "AAAA", "--push-type", "alert", "--alert", "A"], "InvalidPushType"),
        (["send", "--channel", "AAAA", "--alert", "A"], "is for the HTTP/2 provider API: add --http2"),
    ])
    func badUsage(arguments: [String], message: String) throws {
        let apn = try ApnProcess(arguments + ["--certs", "/nonexistent", "--address", "127.0.0.1:1", "--topic", Self.bundleID])
        let (status, standardError) = try apn.waitForExit()
        #expect(status == 2, "\(standardError)")
        #expect(standardError.contains(message), "\(standardError)")
    }
}
