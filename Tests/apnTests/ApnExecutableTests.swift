import APNTLS
import APNWire
import Foundation
import APNTestSupport
import APNTestTraits
import Testing

@Suite("apn executable", .threadPerTest, .ownsChildProcesses)
struct ApnExecutableTests {
    /// A fresh temporary directory for one test.
    private func temporaryDirectory() throws -> String {
        let path = (NSTemporaryDirectory() as NSString).appendingPathComponent("apnTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    private func file(_ directory: String, _ name: String) -> String {
        (directory as NSString).appendingPathComponent(name)
    }

    @Test("apn certs writes the CA, server and push client certificates")
    func certs() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let target = file(directory, "certs")
        let apn = try ApnProcess(["certs", target, "--topic", "com.example.tests", "--p12-password", "s3cret"])
        let line = try apn.nextLine()
        let (status, standardError) = try apn.waitForExit()
        #expect(status == 0, "stderr: \(standardError)")
        let written = try jsonObject(line)
        #expect(written["dir"] as? String == target)
        #expect((written["files"] as? [String])?.contains("client.p12") == true)
        #expect(!line.contains("s3cret") && !line.contains("PRIVATE KEY"))
        for name in ["ca.pem", "server.pem", "server.key", "client.pem", "client.key", "client.p12"] {
            #expect(FileManager.default.fileExists(atPath: file(target, name)), "\(name) missing")
        }
        let client = try TLSCredentials(certificateFile: file(target, "client.pem"), keyFile: file(target, "client.key"))
        #expect(client.certificate.hasExtension(oid: PushEnvironment.sandbox.oid))
        #expect(client.certificate.hasExtension(oid: PushEnvironment.production.oid))
        #expect(client.certificate.subject.contains("com.example.tests"))
        let bundled = try TLSCredentials(pkcs12File: file(target, "client.p12"), password: "s3cret")
        #expect(bundled.certificate.subject == client.certificate.subject)
    }

    /// Foundation's `deletingLastPathComponent` trapped on a one-letter relative path, so
    /// `apn certs c` died with "Illegal instruction" while `apn certs cc` worked.
    @Test("apn certs accepts any folder name", arguments: ["c", "c/", "cc", "a/b", "x/y/z/", "./d"])
    func certsFolderNames(_ name: String) throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let apn = try ApnProcess(["certs", name], directory: directory)
        let (status, standardError) = try apn.waitForExit()
        #expect(status == 0, "stderr: \(standardError)")
        for file in ["ca.pem", "server.pem", "server.key", "client.pem", "client.key", "client.p12"] {
            #expect(FileManager.default.fileExists(atPath: self.file(self.file(directory, name), file)), "\(file) missing")
        }
    }

    @Test("apn mock-gateway records a notification and stops on SIGTERM")
    func mockGatewayRecordsAndStops() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let certs = file(directory, "certs")
        let makeCerts = try ApnProcess(["certs", certs])
        #expect(try makeCerts.waitForExit().status == 0)

        let recordFile = file(directory, "records.jsonl")
        let gateway = try ApnProcess(["mock-gateway", "--certs", certs, "--record", recordFile])
        let started = try jsonObject(try gateway.nextLine())
        #expect(started["certs"] as? String == certs)
        let address = try #require(started["gateway"] as? String)
        #expect((started["feedback"] as? String)?.hasPrefix("127.0.0.1:") == true)
        let portText = try #require(address.split(separator: ":").last)
        let port = try #require(UInt16(portText))
        #expect(address == "127.0.0.1:\(port)")

        let context = try TLSClientContext(
            trustedCertificates: TLSCertificate.certificates(
                fromPEM: Array(try Data(contentsOf: URL(fileURLWithPath: file(certs, "ca.pem"))))),
            credentials: TLSCredentials(certificateFile: file(certs, "client.pem"), keyFile: file(certs, "client.key")))
        let connection = try TLSConnection.connect(host: "127.0.0.1", port: port, context: context, timeout: .seconds(5))
        defer { connection.close() }
        try connection.handshake(deadline: .now + .seconds(5))

        let token = [UInt8](repeating: 0xAB, count: 32)
        let payload = #"{"aps":{"alert":"hello"}}"#
        var frame = WireBuffer()
        frame.writeEnhancedNotification(identifier: 7, expiry: 0, token: token, payload: Array(payload.utf8))
        try TestClient(connection).send(frame.readableBytesArray, timeout: .seconds(5))

        // The gateway writes each record line with one write(2) as soon as it is accepted.
        // Between reads of the file, wait (at most 100 ms) on the connection: the gateway
        // sends nothing on it unless it refuses the notification or closes, both failures.
        var recordLine: String?
        for _ in 0..<100 {
            let text = (try? String(contentsOfFile: recordFile, encoding: .utf8)) ?? ""
            if let line = text.split(separator: "\n").first {
                recordLine = String(line)
                break
            }
            try waitForSilence(on: connection, for: .milliseconds(100))
        }
        let record = try jsonObject(try #require(recordLine, "no record line within the deadline"))
        #expect(record["connection"] as? Int == 1)
        #expect(record["seq"] as? Int == 1)
        #expect(record["command"] as? Int == 1)
        #expect(record["identifier"] as? Int == 7)
        #expect(record["token"] as? String == String(repeating: "ab", count: 32))
        #expect(record["payload"] as? String == payload)
        #expect(record["expiry"] as? Int == 0)
        #expect(record["priority"] is NSNull)

        gateway.send(SIGTERM)
        let summary = try jsonObject(try gateway.nextLine())
        #expect(summary["connections"] as? Int == 1)
        #expect(summary["accepted"] as? Int == 1)
        #expect((summary["rejected"] as? [String: Any])?.isEmpty == true)
        let (status, standardError) = try gateway.waitForExit()
        #expect(status == 0, "stderr: \(standardError)")
    }

    @Test("apn mock-gateway --bogus exits with status 2 and says why")
    func badFlag() throws {
        let apn = try ApnProcess(["mock-gateway", "--bogus"])
        let (status, standardError) = try apn.waitForExit()
        #expect(status == 2)
        #expect(standardError.contains("--bogus"))
    }

    @Test("an unknown subcommand exits with status 2 and lists the subcommands")
    func unknownSubcommand() throws {
        let apn = try ApnProcess(["nope"])
        let (status, standardError) = try apn.waitForExit()
        #expect(status == 2)
        #expect(standardError.contains("unknown subcommand \"nope\""))
        #expect(standardError.contains("mock-gateway"))
    }

    @Test("apn mock-gateway --help prints usage and exits 0")
    func help() throws {
        let apn = try ApnProcess(["mock-gateway", "--help"])
        #expect(try apn.nextLine().hasPrefix("usage: apn mock-gateway"))
        #expect(try apn.waitForExit().status == 0)
    }

    /// Reads from `connection` for up to `duration`, expecting nothing but TLS housekeeping
    /// (TLS 1.3 session tickets, consumed by the read): an error response or a close fails.
    private func waitForSilence(on connection: TLSConnection, for duration: Duration) throws {
        let deadline = ContinuousClock.now + duration
        var buffer = [UInt8](repeating: 0, count: 64)
        while true {
            switch buffer.withUnsafeMutableBytes({ connection.read(into: $0, deadline: deadline) }) {
            case .bytes(let count): throw TLSError(.read, "the gateway answered \(hexString(buffer[..<count]))")
            case .timedOut: return
            case .closed(let clean): throw TLSError(.read, "the gateway closed the connection (clean: \(clean))")
            case .failed(let error): throw error
            }
        }
    }
}
