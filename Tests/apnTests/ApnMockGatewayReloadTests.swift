import Foundation
import Glibc
import APNTestTraits
import Testing

/// #42, every long-running command reloads at SIGHUP: `apn mock-gateway` reads its command
/// line and `--config` again, applies the new faults at once and names what needs a restart;
/// a file that does not load is refused with one line and the faults in force are kept.
@Suite("apn mock-gateway SIGHUP", .threadPerTest, .ownsChildProcesses)
struct ApnMockGatewayReloadTests {
    static let token = String(repeating: "03", count: 32)

    /// `apn send` of one notification to `token`: its outcome line (`--all`).
    static func send(_ certificates: ApnMockGatewayFlagTests.Certificates, _ address: String) throws -> [String: Any] {
        let send = try ApnProcess([
            "send", "--certs", certificates.directory, "--address", address, "--token", token, "--alert", "x", "--all",
        ])
        _ = try send.waitForExit()
        return try jsonObject(try #require(try send.remainingLines().first))
    }

    @Test func newFaultsApplyAtOnceAndTheRestNeedsARestart() throws {
        let certificates = try ApnMockGatewayFlagTests.Certificates()
        let config = certificates.root + "/mock.json"
        try #"{"reject": ["\#(String(repeating: "02", count: 32)):7"]}"#.write(toFile: config, atomically: true, encoding: .utf8)
        let gateway = try ApnProcess(["mock-gateway", "--certs", certificates.directory, "--config", config])
        let address = try #require(try jsonObject(try gateway.nextLine())["gateway"] as? String)
        #expect(try Self.send(certificates, address)["outcome"] as? String == "accepted")

        try #"{"reject": ["\#(Self.token):8"], "port": 1}"#.write(toFile: config, atomically: true, encoding: .utf8)
        gateway.send(SIGHUP)
        #expect(gateway.waitForStandardError { $0.contains(#""event":"reloaded","needs_restart":["port"]"#) })
        let refused = try Self.send(certificates, address)
        #expect(refused["outcome"] as? String == "rejected" && refused["status"] as? Int == 8, "\(refused)")

        try "{not json".write(toFile: config, atomically: true, encoding: .utf8)
        gateway.send(SIGHUP)
        #expect(gateway.waitForStandardError { $0.contains(#""event":"reload_refused""#) })
        #expect(try Self.send(certificates, address)["status"] as? Int == 8, "the faults in force are kept")

        gateway.send(SIGTERM)
        let (status, _) = try gateway.waitForExit()
        #expect(status == 0, "still serving after the reloads, then a clean stop")
    }
}
