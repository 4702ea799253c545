import APNSupport
import APNTLS
import APNWire
import Dispatch
import Foundation
import APNTestSupport
import APNTestTraits
import Testing

/// `apn mock-gateway` against hostile input and peers (issue #16): what it refuses at start,
/// what it says, and how it stops under a client that never stops sending.
@Suite("apn mock-gateway hostile peers", .threadPerTest, .ownsChildProcesses)
struct ApnMockGatewayHostileTests {
    typealias Certificates = ApnMockGatewayFlagTests.Certificates

    /// The gateway and feedback ports from the start line.
    static func ports(of gateway: ApnProcess) throws -> (gateway: UInt16, feedback: UInt16) {
        let started = try jsonObject(try gateway.nextLine())
        func port(_ key: String) throws -> UInt16 {
            let address = try #require(started[key] as? String)
            return try #require(address.split(separator: ":").last.flatMap { UInt16($0) })
        }
        return (try port("gateway"), try port("feedback"))
    }

    static func write(_ text: String, in certificates: Certificates, name: String) throws -> String {
        let path = (certificates.root as NSString).appendingPathComponent(name)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test("a feedback token over 65,535 bytes is refused at start; the longest is served without a crash")
    func feedbackTokenLength() throws {
        let certificates = try Certificates()
        let tooLong = try Self.write(String(repeating: "ab", count: 65_536) + ":5\n", in: certificates, name: "long.txt")
        let refused = try ApnProcess(["mock-gateway", "--certs", certificates.directory, "--feedback-file", tooLong])
        let (status, standardError) = try refused.waitForExit()
        #expect(status == 2)
        #expect(standardError.contains("the token is 65536 bytes; a feedback tuple carries at most 65535"))

        let longest = try Self.write(String(repeating: "cd", count: 65_535) + ":5\n", in: certificates, name: "longest.txt")
        let gateway = try ApnProcess(["mock-gateway", "--certs", certificates.directory, "--feedback-file", longest])
        let transcript = try certificates.connect(port: try Self.ports(of: gateway).feedback).readToEnd()
        #expect(transcript.bytes.count == 6 + 65_535)
        #expect(transcript.end == .closed(clean: true))
        gateway.send(SIGTERM)
        #expect(try jsonObject(try gateway.nextLine())["feedback_connections"] as? Int == 1)
        #expect(try gateway.waitForExit().status == 0)
    }

    @Test("a --feedback-file with CRLF line ends is read as lines")
    func feedbackFileWithCRLF() throws {
        let certificates = try Certificates()
        let file = try Self.write("# tokens\r\n0a0b:1700000000\r\n\r\n0c0d 1700000001\r\n", in: certificates, name: "crlf.txt")
        let gateway = try ApnProcess(["mock-gateway", "--certs", certificates.directory, "--feedback-file", file])
        let transcript = try certificates.connect(port: try Self.ports(of: gateway).feedback).readToEnd()
        var expected = WireBuffer()
        expected.writeFeedbackTuple(time: 1_700_000_000, token: [0x0A, 0x0B])
        expected.writeFeedbackTuple(time: 1_700_000_001, token: [0x0C, 0x0D])
        #expect(transcript.bytes == expected.readableBytesArray)
        gateway.send(SIGTERM)
        #expect(try gateway.waitForExit().status == 0)
    }

    @Test("--certs naming a file or a folder that cannot be made says so in one line", arguments: [false, true])
    func certificateDirectoryUnusable(isFile: Bool) throws {
        let root = (NSTemporaryDirectory() as NSString).appendingPathComponent("apnTests-\(UUID().uuidString)")
        try Data("not a directory".utf8).write(to: URL(fileURLWithPath: root))
        defer { try? FileManager.default.removeItem(atPath: root) }
        // A folder under a file cannot be created.
        let target = isFile ? root : (root as NSString).appendingPathComponent("certs")
        let apn = try ApnProcess(["mock-gateway", "--certs", target])
        let (status, standardError) = try apn.waitForExit()
        #expect(status == 2)
        let first = try #require(standardError.split(separator: "\n").first)
        #expect(first == "apn mock-gateway: --certs \(target): cannot create the certificates there: \(root): Not a directory")
        #expect(!standardError.contains("Error Domain"))
    }

    @Test("a --host that does not resolve is named as the listen address")
    func unresolvableListenHost() throws {
        let apn = try ApnProcess(["mock-gateway", "--host", "no-such-host.invalid"])
        let (status, standardError) = try apn.waitForExit()
        #expect(status == 1)
        #expect(standardError.contains("TLS listen failed: resolving the listen address no-such-host.invalid"))
        #expect(!standardError.contains("connect"))
    }

    @Test("SIGTERM under a client that never stops sending: it stops, and the summary counts the record file's lines")
    func stopUnderLoadWithRecord() throws {
        let certificates = try Certificates()
        let recordFile = (certificates.root as NSString).appendingPathComponent("records.jsonl")
        let gateway = try ApnProcess(["mock-gateway", "--certs", certificates.directory, "--record", recordFile])
        let client = try certificates.connect(port: try Self.ports(of: gateway).gateway)
        let stopped = DispatchSemaphore(value: 0)
        let busy = DispatchSemaphore(value: 0)
        let frames = ApnMockGatewayFlagTests.frames(1...250)
        let sender = Handoff(client)
        // Sends until the gateway closes, keeping the socket full; says so after 400 rounds
        // (100,000 notifications, more than the kernel's buffers hold: the gateway has read).
        Thread.detachNewThread {
            sendUntilClosed(sender.take(), frames, signalling: busy, after: 400)
            stopped.signal()
        }
        #expect(busy.wait(timeout: .now() + 60) == .success, "the client sent 100,000 notifications")
        gateway.send(SIGTERM)
        let summary = try jsonObject(try gateway.nextLine(timeout: 60))
        #expect(try gateway.waitForExit(timeout: 60).status == 0)
        #expect(stopped.wait(timeout: .now() + 30) == .success, "the client's writes fail once the gateway stopped")
        let text = try String(contentsOfFile: recordFile, encoding: .utf8)
        let lines = text.split(separator: "\n")
        let accepted = try #require(summary["accepted"] as? Int)
        #expect(accepted > 0)
        #expect(lines.count == accepted, "every accepted notification is in the file, and nothing else")
        #expect(text.hasSuffix("\n"), "no torn last line")
        if let last = lines.last { #expect(try jsonObject(String(last))["seq"] as? Int == accepted) }
    }

    @Test("--max-connections refuses the one beyond and --idle-timeout closes a silent one; the summary counts both")
    func connectionLimitAndIdleTimeout() throws {
        let certificates = try Certificates()
        let gateway = try ApnProcess([
            "mock-gateway", "--certs", certificates.directory, "--max-connections", "1", "--idle-timeout", "1",
        ])
        let port = try Self.ports(of: gateway).gateway
        let silent = try certificates.connect(port: port)
        #expect(throws: TLSError.self) { _ = try certificates.connect(port: port) }
        #expect(try silent.readToEnd().end == .closed(clean: false), "closed for idleness")
        gateway.send(SIGTERM)
        let summary = try jsonObject(try gateway.nextLine())
        #expect(summary["refused_connections"] as? Int == 1)
        #expect(summary["idle_timeouts"] as? Int == 1)
        #expect(summary["thread_start_failures"] as? Int == 0)
        #expect(try gateway.waitForExit().status == 0)
    }

    @Test("bad --max-connections and --idle-timeout values exit with status 2", arguments: [
        ["--max-connections", "0"], ["--idle-timeout", "-1"], ["--idle-timeout", "soon"],
    ])
    func badLimitFlag(arguments: [String]) throws {
        let apn = try ApnProcess(["mock-gateway"] + arguments)
        let (status, standardError) = try apn.waitForExit()
        #expect(status == 2)
        #expect(standardError.contains(arguments[0]))
    }
}

/// Sends `bytes` on `client` again and again until a write fails, signalling `busy` after
/// `rounds` (or at the end, if it comes first), then closes it.
func sendUntilClosed(_ client: TestClient, _ bytes: [UInt8], signalling busy: DispatchSemaphore, after rounds: Int) {
    var sent = 0
    while (try? client.send(bytes)) != nil {
        sent += 1
        if sent == rounds { busy.signal() }
    }
    if sent < rounds { busy.signal() }
    client.connection.close()
}
