import Foundation
import Testing
import APNTestSupport
import APNTestTraits

/// `apn send`'s progress line, which it draws only on a terminal: run under `script(1)`, which
/// gives it a pseudo-terminal, both protocols (#26 item 4: the same look for `--http2`).
@Suite("apn send: the progress line on a terminal", .threadPerTest, .ownsChildProcesses)
struct ApnSendProgressTests {
    static let tokens = (1...3).flatMap { ["--token", String(format: "%064x", $0)] }

    /// What the terminal showed while `arguments` ran (`apn` with standard error on the
    /// pseudo-terminal, standard output thrown away), and the exit status.
    static func onATerminal(_ arguments: [String]) throws -> (status: Int32, screen: String) {
        let apn = try ApnProcess.executable().path
        let command = ([apn] + arguments).map { "'\($0)'" }.joined(separator: " ") + " 2>&1 >/dev/null"
        let script = try ChildProcess("/usr/bin/script", arguments: ["-qefc", command, "/dev/null"], standardError: .null)
        let screen = ChildProcess.readToEnd(script.standardOutput!)
        guard let termination = script.waitForExit(timeout: .seconds(60)) else {
            Issue.record("script did not end")
            return (-1, "")
        }
        guard case .exited(let status) = termination else {
            Issue.record("script: \(termination)")
            return (-1, "")
        }
        return (status, String(decoding: screen, as: UTF8.self))
    }

    @Test("binary and --http2 draw the same line, ending with every count", arguments: [false, true])
    func sameLineBothWays(_ http2: Bool) throws {
        let fixture = try SendFixture(gatewayArguments: http2 ? ["--http2"] : [])
        let target = http2
            ? ["send", "--http2", "--ca", (fixture.certs as NSString).appendingPathComponent("ca.pem"),
               "--address", try #require(fixture.http2Address)]
            : ["send", "--address", fixture.address]
        let (status, screen) = try Self.onATerminal(target + ["--certs", fixture.certs, "--alert", "Hi"] + Self.tokens)
        #expect(status == 0, "\(screen)")
        #expect(screen.contains("\r\u{1B}[Ksent 3/3  accepted 3  not accepted 0"), "\(screen.debugDescription)")
        _ = try fixture.stop()
    }
}
