import Foundation
import Glibc
import Testing
import APNTestSupport
import APNTestTraits

/// `apn send` fails fast against a gateway it cannot reach, one standard-error line per
/// failed attempt. Nothing here bounds wall time: the lines are counted instead, and the
/// defaults (three attempts; 1 s and 2 s between them) keep each case a few seconds long.
@Suite("apn send: unreachable gateways", .threadPerTest, .ownsChildProcesses)
struct ApnSendConnectTests {
    static let token = String(repeating: "11", count: 32)

    private func send(_ arguments: [String]) throws -> (status: Int32, lines: [[String: Any]], attempts: [String]) {
        let certs = (NSTemporaryDirectory() as NSString).appendingPathComponent("apnTests-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(atPath: certs) }
        #expect(try ApnProcess(["certs", certs]).waitForExit().status == 0)
        let apn = try ApnProcess(["send", "--certs", certs, "--token", Self.token, "--alert", "Hi"] + arguments)
        let (status, standardError) = try apn.waitForExit(timeout: 120)
        let attempts = standardError.split(separator: "\n").map(String.init).filter { $0.hasPrefix("apn send: connecting to") }
        return (status, try apn.remainingLines().map(jsonObject), attempts)
    }

    @Test("a refused port: retry-limit + 1 lines, each with its next try, the last giving up; exit 1", arguments: [false, true])
    func refused(http2: Bool) throws {
        let port = try PlainSockets.unusedPort()
        let (status, lines, attempts) = try send(["--address", "127.0.0.1:\(port)"] + (http2 ? ["--http2"] : []))
        #expect(status == 1)
        #expect(attempts.count == 3, "the default --retry-limit 2: \(attempts)")
        #expect(attempts.allSatisfy { $0.contains("127.0.0.1:\(port) failed: connection refused (errno 111)") }, "\(attempts)")
        let waits = http2 ? ["next try in 0.25 s", "next try in 0.5 s"] : ["next try in 1 s", "next try in 2 s"]
        #expect(attempts.map { $0.components(separatedBy: "; ").last ?? "" } == waits + ["giving up"])
        let summary = try #require(lines.last)
        #expect(summary["failed"] as? Int == 1)
        #expect(summary["interrupted"] as? Bool == false)
        #expect(lines.first?["outcome"] as? String == "failed")
    }

    @Test("--retry-limit 0 --connect-timeout 1 against a peer that takes TCP and never answers TLS: one line, a timeout", arguments: [false, true])
    func blackHole(http2: Bool) throws {
        let (listener, port) = try PlainSockets.listen()
        defer { close(listener) }
        let (status, lines, attempts) = try send(
            ["--address", "127.0.0.1:\(port)", "--retry-limit", "0", "--connect-timeout", "1"] + (http2 ? ["--http2"] : []))
        #expect(status == 1)
        #expect(attempts.count == 1, "\(attempts)")
        let line = try #require(attempts.first)
        #expect(line.contains("timed out") || line.contains("no connection within"), "\(line)")
        #expect(line.hasSuffix("; giving up"))
        #expect(lines.last?["failed"] as? Int == 1)
    }

    @Test("bad values of the new flags exit 2", arguments: [
        (["--connect-timeout", "0"], "--connect-timeout: \"0\""), (["--retry-limit", "-1"], "--retry-limit: \"-1\""),
    ])
    func badUsage(arguments: [String], message: String) throws {
        let apn = try ApnProcess(["send", "--token", Self.token, "--alert", "Hi"] + arguments)
        let (status, standardError) = try apn.waitForExit()
        #expect(status == 2)
        #expect(standardError.contains(message), "\(standardError)")
    }
}
