import Foundation
import Glibc
import Testing
import APNTestSupport
import APNTestTraits

/// SIGINT during `apn send` to a slow `apn mock-gateway`: a summary, a line for every
/// notification not accepted — `not_sent` for those never handed over — and exit 130.
///
/// The tokens come on standard input, more than a pipe holds: `apn send` takes its signals
/// over before reading them, so once they are written it is sure to catch SIGINT.
@Suite("apn send: interrupted", .threadPerTest, .ownsChildProcesses)
struct ApnSendStopTests {
    static let count = 30_000

    static var tokens: [UInt8] {
        Array((0..<count).map { String(format: "%016x", $0) + String(repeating: "a5", count: 24) }.joined(separator: "\n").utf8)
    }

    private func interrupt(_ apn: ApnProcess) throws -> (status: Int32, lines: [[String: Any]]) {
        try #require(apn.inputWritten.wait(timeout: .now() + 60) == .success, "apn send did not read its tokens")
        apn.send(SIGINT)
        let (status, standardError) = try apn.waitForExit(timeout: 60)
        #expect(status == 130, "\(standardError)")
        return (status, try apn.remainingLines().map(jsonObject))
    }

    @Test("binary: stopped with notifications unsent; every one not accepted listed, the unsent as not_sent")
    func binary() throws {
        // 50 a second, 1.8 kB each: the socket's buffers fill within the first chunk.
        let fixture = try SendFixture(gatewayArguments: ["--read-rate", "50"])
        let apn = try ApnProcess(
            ["send", "--certs", fixture.certs, "--address", fixture.address, "--tokens-file", "-", "--format", "frame",
             "--alert", String(repeating: "x", count: 1800)],
            input: Self.tokens)
        let (_, lines) = try interrupt(apn)
        let summary = try #require(lines.last)
        #expect(summary["interrupted"] as? Bool == true)
        let accepted = try #require(summary["accepted"] as? Int)
        let outcomes = lines.dropLast()
        #expect(outcomes.count == Self.count - accepted)
        let notSent = outcomes.filter { $0["outcome"] as? String == "not_sent" }.count
        #expect(notSent > 0)
        #expect(summary["not_sent"] as? Int == notSent)
        #expect(outcomes.allSatisfy { $0["outcome"] as? String != "accepted" })
        #expect(Set(outcomes.compactMap { $0["token"] as? String }).count == outcomes.count, "one line per notification")
    }

    /// A tokens file of 4 MiB or more is read while it is sent (``RecipientSupply``): stopped
    /// once the first socket is connected, the send still prints a line for every
    /// notification not accepted — the file read to its end — and its bad line.
    @Test("binary, a large tokens file read while sending: stopped, every one not accepted listed, the bad line too")
    func binaryFromALargeFile() throws {
        let fixture = try SendFixture(gatewayArguments: ["--read-rate", "50"])
        let count = 70_000
        var lines = (0..<count).map { String(format: "%016x", $0) + String(repeating: "a5", count: 24) }
        lines[65_000] = "zz"
        let tokens = try fixture.file("large.txt", lines.joined(separator: "\n"))
        #expect(try FileManager.default.attributesOfItem(atPath: tokens)[.size] as? Int ?? 0 >= 4 << 20, "read while sending")
        let apn = try ApnProcess(
            ["send", "--certs", fixture.certs, "--address", fixture.address, "--tokens-file", tokens, "--format", "frame",
             "--alert", String(repeating: "x", count: 1800), "--log-level", "debug"])
        // Connected: the signals were taken over before the file was opened.
        try #require(apn.waitForStandardError { $0.contains("socket connected") }, "apn send did not connect")
        apn.send(SIGINT)
        let (status, standardError) = try apn.waitForExit(timeout: 60)
        #expect(status == 130, "\(standardError)")
        let output = try apn.remainingLines().map(jsonObject)
        let summary = try #require(output.last)
        #expect(summary["interrupted"] as? Bool == true)
        #expect(summary["total"] as? Int == count - 1)
        #expect(summary["invalid_tokens"] as? Int == 1)
        let bad = output.filter { $0["line"] != nil }
        #expect(bad.map { $0["line"] as? Int } == [65_001])
        let accepted = try #require(summary["accepted"] as? Int)
        let outcomes = output.dropLast().filter { $0["line"] == nil }
        #expect(outcomes.count == count - 1 - accepted)
        let notSent = outcomes.filter { $0["outcome"] as? String == "not_sent" }.count
        #expect(notSent > 0)
        #expect(summary["not_sent"] as? Int == notSent)
        #expect(Set(outcomes.compactMap { $0["token"] as? String }).count == outcomes.count, "one line per notification")
    }

    @Test("--http2: stopped with answers held back; the unsent as not_sent, exit 130")
    func http2() throws {
        let fixture = try SendFixture(gatewayArguments: ["--http2", "--http2-delay-ms", "30000"])
        let apn = try ApnProcess(
            ["send", "--http2", "--ca", (fixture.certs as NSString).appendingPathComponent("ca.pem"),
             "--certs", fixture.certs, "--address", try #require(fixture.http2Address), "--tokens-file", "-",
             "--alert", "Hi"],
            input: Self.tokens)
        let (_, lines) = try interrupt(apn)
        let summary = try #require(lines.last)
        #expect(summary["interrupted"] as? Bool == true)
        let accepted = try #require(summary["accepted"] as? Int)
        let outcomes = lines.dropLast()
        #expect(outcomes.count == Self.count - accepted)
        let notSent = outcomes.filter { $0["outcome"] as? String == "not_sent" }.count
        #expect(notSent > 0)
        #expect(summary["not_sent"] as? Int == notSent)
        // Written and never answered (the mock holds answers 30 s): unknown fate, not failed.
        let unanswered = outcomes.filter { $0["outcome"] as? String == "unknown_fate" }
        #expect(summary["unknown_fate"] as? Int == unanswered.count)
        #expect(unanswered.allSatisfy { $0["error"] as? String == "cancelled" }, "\(unanswered.prefix(2))")
        #expect(summary["total"] as? Int == Self.count)
        #expect(Set(outcomes.compactMap { $0["token"] as? String }).count == outcomes.count, "one line per notification")
    }
}
