import APN
import APNTLS
import Foundation
import Testing

/// `apn mock-gateway`'s fault and TLS flags, exercised as a process by clients built from
/// the library.
@Suite("apn mock-gateway flags")
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
        var options = Connection.Options()
        options.address = "127.0.0.1"
        options.port = try Self.port(of: gateway)
        options.cert = .file(certificates.path("client.pem"))
        options.key = .file(certificates.path("client.key"))
        options.ca = [.file(certificates.path("ca.pem"))]
        options.shutdownGraceWindow = .milliseconds(200)
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
}
