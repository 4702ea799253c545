import Foundation
import Testing
import APNTestSupport
import APNTestTraits

/// `apn send --http2` against a slow `apn mock-gateway --http2`: the request timeout counts
/// from each write, not from the start of the send (#26 row 3), and background pushes go with
/// priority 5 (row 4).
@Suite("apn send --http2: request timeout and background priority", .threadPerTest, .ownsChildProcesses)
struct ApnSendHTTP2TimingTests {
    static func token(_ n: Int) -> String { String(format: "%064x", n) }

    @Test("ten answers 600 ms apart on one stream take 6 s in all: none times out under --request-timeout 5")
    func queuedTimeDoesNotCount() throws {
        let fixture = try SendFixture(gatewayArguments: ["--http2", "--http2-delay-ms", "600", "--http2-max-streams", "1"])
        let tokens = (1...10).flatMap { ["--token", Self.token($0)] }
        let (status, lines, standardError) = try fixture.sendHTTP2(
            ["--certs", fixture.certs, "--alert", "Hi", "--request-timeout", "5"] + tokens)
        #expect(status == 0, "\(standardError) \(lines)")
        let http2 = try #require(try fixture.stop()["http2"] as? [String: Any])
        #expect(http2["accepted"] as? Int == 10)
    }

    @Test("an answer later than --request-timeout: timed out, said to be maybe delivered, not sent again")
    func lateAnswerTimesOut() throws {
        let fixture = try SendFixture(gatewayArguments: ["--http2", "--http2-delay-ms", "4000"])
        let (status, lines, standardError) = try fixture.sendHTTP2(
            ["--certs", fixture.certs, "--alert", "Hi", "--request-timeout", "0.5", "--token", Self.token(1)])
        #expect(status == 1, "\(standardError)")
        let line = try #require(lines.first { $0["token"] as? String == Self.token(1) })
        #expect(line["outcome"] as? String == "unknown_fate")
        #expect(line["error"] as? String == "timed_out")
        #expect((line["description"] as? String)?.contains("may have been delivered") == true, "\(line)")
        #expect(line["attempts"] as? Int == 1, "written once")
        _ = try fixture.stop()
    }

    @Test("--content-available goes as apns-push-type background with apns-priority 5")
    func backgroundPriority() throws {
        let recordFile = (NSTemporaryDirectory() as NSString).appendingPathComponent("apn-h2-bg-\(UUID().uuidString).jsonl")
        defer { try? FileManager.default.removeItem(atPath: recordFile) }
        let fixture = try SendFixture(gatewayArguments: ["--http2", "--record", recordFile])
        let (status, _, standardError) = try fixture.sendHTTP2(
            ["--certs", fixture.certs, "--content-available", "--token", Self.token(1)])
        #expect(status == 0, "\(standardError)")
        _ = try fixture.stop()
        let record = try jsonObject(
            try String(contentsOfFile: recordFile, encoding: .utf8).split(separator: "\n").first.map(String.init) ?? "")
        #expect(record["push_type"] as? String == "background")
        #expect(record["priority"] as? Int == 5)
    }

    @Test("--request-timeout takes seconds in 0.1...3600", arguments: ["0", "abc", "3601"])
    func badRequestTimeout(_ value: String) throws {
        let apn = try ApnProcess(["send", "--http2", "--request-timeout", value, "--token", Self.token(1), "--alert", "x"])
        let (status, standardError) = try apn.waitForExit(timeout: 30)
        #expect(status == 2)
        #expect(standardError.contains("--request-timeout"), "\(standardError)")
    }
}
