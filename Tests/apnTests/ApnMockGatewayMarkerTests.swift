import APN
import Foundation
import Testing
import APNTestSupport

extension ApnMockGatewayFlagTests.Certificates {
    /// Options for a `Connection` to the gateway at `port`, with the client certificate.
    func connectionOptions(port: UInt16) -> Connection.Options {
        var options = Connection.Options()
        options.address = "127.0.0.1"
        options.port = port
        options.cert = .file(path("client.pem"))
        options.key = .file(path("client.key"))
        options.ca = [.file(path("ca.pem"))]
        return options
    }
}

extension ApnMockGatewayFlagTests {
    @Test("an awaited send's confirmation marker is counted in \"markers\", not in \"rejected\" nor the record file")
    func markersCountedApart() async throws {
        let certificates = try Certificates()
        let recordFile = (certificates.root as NSString).appendingPathComponent("records.jsonl")
        let gateway = try ApnProcess(["mock-gateway", "--certs", certificates.directory, "--record", recordFile])
        let connection = Connection(options: certificates.connectionOptions(port: try Self.port(of: gateway)))
        let outcome = await connection.send(
            Notification().setAlertText("hi"), to: try Device(String(repeating: "ab", count: 32)))
        #expect(outcome == .accepted(Acceptance(evidence: .flush)), "confirmed by its marker")
        await connection.shutdown()

        gateway.send(SIGTERM)
        let summary = try jsonObject(try gateway.nextLine())
        #expect(summary["accepted"] as? Int == 1)
        #expect((summary["rejected"] as? [String: Any])?.isEmpty == true, "\(summary)")
        #expect(summary["markers"] as? Int == 1)
        #expect(try gateway.waitForExit().status == 0)
        let lines = try String(contentsOfFile: recordFile, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 1)
        #expect(lines.first?.contains(#""token":"\#(String(repeating: "ab", count: 32))""#) == true)
    }
}
