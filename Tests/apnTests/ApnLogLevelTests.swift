import Foundation
import Testing
import APNTestSupport
import APNTestTraits

/// `--log-level` (#27 item 8): the library's log on standard error, at the level asked,
/// for both protocols; an unknown level is a usage error.
@Suite("apn --log-level", .threadPerTest, .ownsChildProcesses)
struct ApnLogLevelTests {
    static let token = String(repeating: "5a", count: 32)

    @Test("debug shows the sockets opening and closing; the default (warning) shows nothing of them")
    func levels() throws {
        let fixture = try SendFixture(gatewayArguments: ["--http2"])
        let debug = try fixture.send(["--token", Self.token, "--alert", "Hi", "--log-level", "debug"])
        #expect(debug.status == 0, "\(debug.standardError)")
        #expect(debug.standardError.contains("swift-apn.connection: DEBUG: socket connected"), "\(debug.standardError)")
        #expect(!debug.standardError.contains(Self.token), "no token in a log line")
        let quiet = try fixture.send(["--token", Self.token, "--alert", "Hi"])
        #expect(quiet.status == 0)
        #expect(!quiet.standardError.contains("DEBUG"), "\(quiet.standardError)")
        let http2 = try fixture.sendHTTP2([
            "--certs", fixture.certs, "--token", Self.token, "--alert", "Hi", "--log-level", "debug",
        ])
        #expect(http2.status == 0, "\(http2.standardError)")
        #expect(http2.standardError.contains("swift-apn.provider: DEBUG"), "\(http2.standardError)")
        #expect(!http2.standardError.contains(Self.token), "no token in a log line")
    }

    @Test("an unknown level exits 2 naming the levels")
    func unknownLevel() throws {
        let apn = try ApnProcess(["send", "--certs", "c", "--token", Self.token, "--alert", "x", "--log-level", "loud"])
        let (status, error) = try apn.waitForExit(timeout: 60)
        #expect(status == 2)
        #expect(error.contains("--log-level must be one of trace, debug, info, notice, warning, error, critical"), "\(error)")
    }
}
