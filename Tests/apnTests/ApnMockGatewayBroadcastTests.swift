import Foundation
import APNTestSupport
import APNTestTraits
import Testing

/// `apn mock-gateway --http2` speaks broadcast push to a client it was not written with:
/// curl creates a channel, reads it, lists it, broadcasts to it and deletes it, over HTTP/2
/// with a client certificate from `apn certs`; the broadcast is in the record file.
@Suite(
    "apn mock-gateway --http2: channels and broadcasts from curl", .threadPerTest, .ownsChildProcesses,
    .enabled(if: Curl.speaksHTTP2, "no /usr/bin/curl with the HTTP2 feature"))
struct ApnMockGatewayBroadcastTests {
    static let curl = Curl.path
    static let requestID = "2288cf3f-70d8-46a6-97d7-dd5d00867127"
    static let payload = #"{"aps":{"event":"update","timestamp":1685952000,"content-state":{"score":"1-0"}}}"#

    /// A response as curl prints it with `-D -`: the status, the fields (names lowercase),
    /// the body.
    struct Response {
        var status: Int
        var fields: [String: String]
        var body: String
    }

    /// Runs curl `--http2` against `path` on the fixture's HTTP/2 gateway, authenticated by
    /// the client certificate `apn certs` wrote, with `arguments`.
    static func curl(_ fixture: SendFixture, _ path: String, _ arguments: [String]) throws -> Response {
        let address = try #require(fixture.http2Address)
        let process = try ApnProcess(
            [
                "--http2", "-sS", "--max-time", "20", "--cacert", fixture.path("certs/ca.pem"),
                "--cert", fixture.path("certs/client.pem"), "--key", fixture.path("certs/client.key"), "-D", "-",
                // The body on a line of its own.
                "-w", "\\n",
            ] + arguments + ["https://\(address)\(path)"], executable: curl)
        let (status, standardError) = try process.waitForExit(timeout: 30)
        #expect(status == 0, "curl: \(standardError)")
        let lines = try process.remainingLines().map { $0.hasSuffix("\r") ? String($0.dropLast()) : $0 }
        let statusLine = try #require(lines.first)
        var fields: [String: String] = [:]
        var index = 1
        while index < lines.count, !lines[index].isEmpty {
            let parts = lines[index].split(separator: ":", maxSplits: 1)
            if parts.count == 2 { fields[parts[0].lowercased()] = parts[1].trimmingCharacters(in: .whitespaces) }
            index += 1
        }
        return Response(
            status: try #require(Int(statusLine.split(separator: " ")[1])), fields: fields,
            body: lines.dropFirst(index + 1).joined(separator: "\n"))
    }

    @Test("create, read, list, broadcast, a refusal, delete; the broadcast recorded")
    func curlCreatesAChannelAndBroadcastsToIt() throws {
        let recordFile = (NSTemporaryDirectory() as NSString).appendingPathComponent("apn-bc-\(UUID().uuidString).jsonl")
        defer { try? FileManager.default.removeItem(atPath: recordFile) }
        let fixture = try SendFixture(gatewayArguments: ["--http2", "--record", recordFile])
        let channels = "/1/apps/com.example.app/channels"

        let created = try Self.curl(fixture, channels, [
            "-X", "POST", "-H", "apns-request-id: \(Self.requestID)",
            "-d", #"{"message-storage-policy": 1, "push-type": "LiveActivity"}"#,
        ])
        #expect(created.status == 201 && created.fields["apns-request-id"] == Self.requestID)
        let channel = try #require(created.fields["apns-channel-id"])
        #expect(Data(base64Encoded: channel)?.count == 16)

        let read = try Self.curl(fixture, channels, ["-H", "apns-channel-id: \(channel)"])
        #expect(read.status == 200 && read.body == #"{"message-storage-policy":1,"push-type":"LiveActivity"}"#)
        let list = try Self.curl(fixture, "/1/apps/com.example.app/all-channels", [])
        #expect(list.status == 200 && list.body == #"{"channels":["\#(channel)"]}"#)

        func broadcast(_ fields: [String]) -> [String] {
            ["-X", "POST", "-d", Self.payload] + fields.flatMap { ["-H", $0] }
        }
        let fields = ["apns-channel-id: \(channel)", "apns-priority: 10", "apns-expiration: 0"]
        let sent = try Self.curl(
            fixture, "/4/broadcasts/apps/com.example.app", broadcast(fields + ["apns-push-type: LiveActivity"]))
        #expect(sent.status == 200 && sent.body.isEmpty)
        let uniqueID = try #require(sent.fields["apns-unique-id"])
        let refused = try Self.curl(fixture, "/4/broadcasts/apps/com.example.app", broadcast(fields))
        #expect(refused.status == 400 && refused.body == #"{"reason":"MissingPushType"}"#)
        let deleted = try Self.curl(fixture, channels, ["-X", "DELETE", "-H", "apns-channel-id: \(channel)"])
        #expect(deleted.status == 204)

        let summary = try #require(try fixture.stop()["http2"] as? [String: Any])
        #expect(summary["broadcasts"] as? Int == 1)
        #expect(summary["statuses"] as? [String: Int] == ["200": 3, "201": 1, "204": 1, "400": 1])
        let lines = try String(contentsOfFile: recordFile, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 1)
        let record = try jsonObject(String(try #require(lines.first)))
        #expect(record["kind"] as? String == "broadcast" && record["protocol"] as? String == "http2")
        #expect(record["channel_id"] as? String == channel && record["bundle_id"] as? String == "com.example.app")
        #expect(record["unique_id"] as? String == uniqueID && record["priority"] as? Int == 10)
        #expect(record["expiration"] as? Int == 0 && record["auth"] as? String == "certificate")
        #expect(record["payload"] as? String == Self.payload)
    }
}

/// The system's curl, for tests that need an HTTP/2 client of another make.
enum Curl {
    static let path = "/usr/bin/curl"

    /// Whether `curl --version` lists HTTP2 among its features.
    static var speaksHTTP2: Bool {
        guard FileManager.default.isExecutableFile(atPath: path),
            let process = try? ApnProcess(["--version"], executable: path),
            (try? process.waitForExit(timeout: 30).status) == 0,
            let lines = try? process.remainingLines()
        else { return false }
        return lines.contains { $0.hasPrefix("Features:") && $0.split(separator: " ").contains("HTTP2") }
    }
}
