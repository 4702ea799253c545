import APN
import APNTLS
import APNWire
import Foundation
import APNTestSupport
import APNTestTraits
import Testing

/// `apn mock-gateway`'s fault and TLS flags, exercised as a process by clients built from
/// the library.
@Suite("apn mock-gateway flags", .threadPerTest, .ownsChildProcesses)
struct ApnMockGatewayFlagTests {
    /// A certificate directory written by `apn certs`, removed afterwards.
    final class Certificates {
        let root: String
        let directory: String
        init() throws {
            root = (NSTemporaryDirectory() as NSString).appendingPathComponent("apnTests-\(UUID().uuidString)")
            directory = (root as NSString).appendingPathComponent("certs")
            try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
            let certs = try ApnProcess(["certs", directory])
            guard try certs.waitForExit().status == 0 else { throw TLSError(.credentials, "apn certs failed") }
        }
        deinit { try? FileManager.default.removeItem(atPath: root) }
        func path(_ name: String) -> String { (directory as NSString).appendingPathComponent(name) }

        /// A raw client connected to the gateway at `port` with the client certificate, handshake done.
        func connect(port: UInt16) throws -> TestClient {
            let context = try TLSClientContext(
                trustedCertificates: TLSCertificate.certificates(
                    fromPEM: Array(try Data(contentsOf: URL(fileURLWithPath: path("ca.pem"))))),
                credentials: TLSCredentials(certificateFile: path("client.pem"), keyFile: path("client.key")))
            let connection = try TLSConnection.connect(host: "127.0.0.1", port: port, context: context, timeout: .seconds(5))
            try connection.handshake(deadline: .now + .seconds(5))
            return TestClient(connection)
        }
    }

    /// Command 1 frames for the identifiers, each to a token of 32 bytes `id`.
    static func frames(_ identifiers: ClosedRange<UInt32>) -> [UInt8] {
        var buffer = WireBuffer()
        for id in identifiers {
            buffer.writeEnhancedNotification(
                identifier: id, expiry: 0, token: [UInt8](repeating: UInt8(id), count: 32),
                payload: Array(#"{"aps":{"alert":"hi"}}"#.utf8))
        }
        return buffer.readableBytesArray
    }

    static func port(of gateway: ApnProcess) throws -> UInt16 {
        let started = try jsonObject(try gateway.nextLine())
        let address = try #require(started["gateway"] as? String)
        let port = address.split(separator: ":").last.flatMap { UInt16($0) }
        return try #require(port)
    }

    @Test("--reject TOKEN:STATUS and --shutdown-after N answer a Connection as Apple would")
    func rejectAndShutdownAfter() async throws {
        let certificates = try Certificates()
        let rejected = String(repeating: "0c", count: 32)
        let gateway = try ApnProcess([
            "mock-gateway", "--certs", certificates.directory, "--reject", "\(rejected):7", "--shutdown-after", "4",
        ])
        var options = certificates.connectionOptions(port: try Self.port(of: gateway))
        options.shutdownGraceWindow = .seconds(2)  // the refusal comes within it on a loaded machine too
        let connection = Connection(options: options)
        let tokens = (1...8).map { String(repeating: String(format: "%02x", $0 + 7), count: 32) }
        #expect(tokens[4] == rejected)
        connection.push(Notification().setAlertText("hi"), toTokens: tokens)
        let report = await connection.shutdown()
        #expect(report.rejected == 1)
        #expect(report.accepted == 7)
        if case .rejected(let status)? = report.notAccepted.first?.outcome { #expect(status.rawValue == 7) }

        gateway.send(SIGTERM)
        let summary = try jsonObject(try gateway.nextLine())
        #expect(summary["accepted"] as? Int == 7)
        #expect((summary["rejected"] as? [String: Any])?["7"] as? Int == 1)
        #expect((summary["rejected"] as? [String: Any])?["10"] as? Int == 1)
        #expect(try gateway.waitForExit().status == 0)
    }

    @Test("--tls-min 1.3 refuses a TLS 1.2 client; --no-client-cert takes a client without one")
    func tlsFlags() throws {
        let certificates = try Certificates()
        let gateway = try ApnProcess([
            "mock-gateway", "--certs", certificates.directory, "--tls-min", "1.3", "--no-client-cert",
        ])
        let port = try Self.port(of: gateway)
        let trusted = try TLSCertificate.certificates(
            fromPEM: Array(try Data(contentsOf: URL(fileURLWithPath: certificates.path("ca.pem")))))

        let old = try TLSClientContext(trustedCertificates: trusted, maximumVersion: .tls1_2)
        let refused = try TLSConnection.connect(host: "127.0.0.1", port: port, context: old)
        #expect(throws: TLSError.self) { try refused.handshake(deadline: .now + .seconds(5)) }
        refused.close()

        let anonymous = try TLSClientContext(trustedCertificates: trusted)
        let taken = try TLSConnection.connect(host: "127.0.0.1", port: port, context: anonymous)
        try taken.handshake(deadline: .now + .seconds(5))
        #expect(taken.protocolVersion == "TLSv1.3")
        taken.close()

        gateway.send(SIGTERM)
        let summary = try jsonObject(try gateway.nextLine())
        #expect(summary["handshake_failures"] as? Int == 1)
        #expect(try gateway.waitForExit().status == 0)
    }

    @Test("--latency-ms, --error-lag, --error-trickle-ms and --error-id shape the answer a client reads")
    func remoteGatewayAnswer() throws {
        let certificates = try Certificates()
        let gateway = try ApnProcess([
            "mock-gateway", "--certs", certificates.directory, "--reject-id", "3", "--latency-ms", "150",
            "--error-lag", "2", "--error-trickle-ms", "20", "--error-id", "0xDEADBEEF",
        ])
        let client = try certificates.connect(port: try Self.port(of: gateway))
        defer { client.connection.close() }
        let sent = ContinuousClock.now
        try client.send(Self.frames(1...10))

        let transcript = try client.readToEnd()
        #expect(hexString(transcript.bytes) == "0808deadbeef", "status 8 with the overriding identifier")
        #expect(transcript.reads == [1, 1, 1, 1, 1, 1], "trickled a byte a record")
        #expect(ContinuousClock.now - sent >= .milliseconds(300 + 100), "latency both ways, then 5 gaps")
        #expect(transcript.end == .closed(clean: true))

        gateway.send(SIGTERM)
        let summary = try jsonObject(try gateway.nextLine())
        #expect(summary["accepted"] as? Int == 2)
        #expect((summary["rejected"] as? [String: Any])?["8"] as? Int == 1)
        #expect(try gateway.waitForExit().status == 0)
    }

    @Test("--read-rate, --stall-after N:MS and --reset-after end a connection late and abruptly")
    func slowGatewayThenReset() throws {
        let certificates = try Certificates()
        let gateway = try ApnProcess([
            "mock-gateway", "--certs", certificates.directory, "--read-rate", "20", "--stall-after", "1:300",
            "--reset-after", "3",
        ])
        let client = try certificates.connect(port: try Self.port(of: gateway))
        defer { client.connection.close() }
        let sent = ContinuousClock.now
        try client.send(Self.frames(1...5))

        let transcript = try client.readToEnd()
        #expect(transcript.bytes.isEmpty)
        #expect(transcript.end == .failed(.connectionReset))
        // The 1st at once, a 300 ms stall, the 2nd on a saved token, the 3rd 50 ms later.
        #expect(ContinuousClock.now - sent >= .milliseconds(350))

        gateway.send(SIGTERM)
        let summary = try jsonObject(try gateway.nextLine())
        #expect(summary["accepted"] as? Int == 3)
        #expect(try gateway.waitForExit().status == 0)
    }

    @Test("--drop-every N closes silently after every N-th accepted notification, connection after connection")
    func dropEvery() throws {
        let certificates = try Certificates()
        let gateway = try ApnProcess(["mock-gateway", "--certs", certificates.directory, "--drop-every", "2"])
        let port = try Self.port(of: gateway)
        for round in 0..<2 {
            let client = try certificates.connect(port: port)
            defer { client.connection.close() }
            try client.send(Self.frames(UInt32(round * 2 + 1)...UInt32(round * 2 + 4)))
            let transcript = try client.readToEnd()
            #expect(transcript.bytes.isEmpty, "no error response")
            #expect(transcript.end == .closed(clean: false))
        }
        gateway.send(SIGTERM)
        let summary = try jsonObject(try gateway.nextLine())
        #expect(summary["accepted"] as? Int == 4, "two a connection, then the close")
        #expect(summary["connections"] as? Int == 2)
        #expect(try gateway.waitForExit().status == 0)
    }

    @Test("--stall-after N:MS --stall-then close drops the connection once the stall is over; only the first N count")
    func stallThenClose() throws {
        let certificates = try Certificates()
        let gateway = try ApnProcess([
            "mock-gateway", "--certs", certificates.directory, "--stall-after", "1000:100", "--stall-then", "close",
        ])
        let client = try certificates.connect(port: try Self.port(of: gateway))
        defer { client.connection.close() }
        // 5,000 notifications in one go (identifiers 1...250, 20 times): everything after
        // the 1,000th is thrown away.
        let frames = Array([[UInt8]](repeating: Self.frames(1...250), count: 20).joined())
        try client.send(frames, timeout: .seconds(60))

        let transcript = try client.readToEnd(timeout: .seconds(60))
        #expect(transcript.bytes.isEmpty, "no error response")
        #expect(transcript.end == .closed(clean: false))
        gateway.send(SIGTERM)
        let summary = try jsonObject(try gateway.nextLine())
        #expect(summary["accepted"] as? Int == 1_000)
        #expect((summary["rejected"] as? [String: Any])?.isEmpty == true)
        #expect(try gateway.waitForExit().status == 0)
    }

    @Test("a bad --stall-then, or one without --stall-after, is a one-line usage error", arguments: [
        (["--stall-after", "3", "--stall-then", "later"], "--stall-then: \"later\" is not one of resume, close, reset, never"),
        (["--stall-then", "close"], "--stall-then needs --stall-after"),
    ])
    func badStallThen(arguments: [String], message: String) throws {
        let apn = try ApnProcess(["mock-gateway"] + arguments)
        let (status, standardError) = try apn.waitForExit()
        #expect(status == 2)
        #expect(standardError.split(separator: "\n").first.map(String.init) == "apn mock-gateway: \(message)")
    }

    @Test("a bad value for a remote-gateway flag exits with status 2 and names the flag", arguments: [
        ["--error-id", "0xZZ"], ["--stall-after", "3:soon"], ["--read-rate", "0"], ["--latency-ms", "-5"],
        ["--error-lag", "many"], ["--error-trickle-ms", "1.5"], ["--reset-after", "0"], ["--drop-every", "0"],
        ["--reset-every", "x"],
    ])
    func badRemoteFlag(arguments: [String]) throws {
        let apn = try ApnProcess(["mock-gateway"] + arguments)
        let (status, standardError) = try apn.waitForExit()
        #expect(status == 2)
        #expect(standardError.contains(arguments[0]))
        #expect(standardError.contains("\"\(arguments[1].split(separator: ":").last ?? "")\""))
    }
}
