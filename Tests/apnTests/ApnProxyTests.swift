import Foundation
import Testing
import APNTestSupport
import APNTestTraits

/// #44 item 4 on the command line: `apn send --http2 --proxy URL|env` through Debian's
/// `tinyproxy` (started by the test on a free port, skipped with a note where absent) to
/// `apn mock-gateway --http2`; malformed URLs exit 2; `apn bridge --proxy` (a flag and a
/// configuration key) shows its URL without the password.
@Suite("apn --proxy", .threadPerTest, .ownsChildProcesses)
struct ApnProxyTests {
    static let token = String(repeating: "5a", count: 32)

    static func sendFlags(_ fixture: SendFixture) -> [String] {
        [
            "--topic", "com.example.app", "--key-id", "MOCKKEY001", "--team-id", "MOCKTEAM01", "--p8",
            fixture.path("certs/AuthKey_MOCKKEY001.p8"), "--token", token, "--alert", "Hi",
        ]
    }

    @Test(
        "apn send --http2 --proxy: delivered through tinyproxy; env reads https_proxy and no_proxy",
        .enabled(if: Tinyproxy.isInstalled, "no \(Tinyproxy.path) (apt install tinyproxy)"))
    func throughTinyproxy() throws {
        let fixture = try SendFixture(gatewayArguments: ["--http2"])
        let mockPort = try #require(fixture.http2Address?.split(separator: ":").last.flatMap { UInt16($0) })
        let tinyproxy = try Tinyproxy(directory: fixture.directory, connectPorts: [mockPort])
        let proxy = "http://127.0.0.1:\(tinyproxy.port)"

        let sent = try fixture.sendHTTP2(Self.sendFlags(fixture) + ["--proxy", proxy])
        #expect(sent.status == 0, "\(sent.standardError)")
        #expect(sent.lines.last?["accepted"] as? Int == 1, "\(sent.lines)")

        let fromEnvironment = try fixture.sendHTTP2(
            Self.sendFlags(fixture) + ["--proxy", "env"], environment: ["https_proxy": proxy, "no_proxy": "example.com"])
        #expect(fromEnvironment.status == 0, "\(fromEnvironment.standardError)")

        // A proxy nothing listens on: the environment's is used when asked, and only then.
        let nowhere = "http://127.0.0.1:\(try PlainSockets.unusedPort())"
        let refused = try fixture.sendHTTP2(Self.sendFlags(fixture) + ["--proxy", "env"], environment: ["https_proxy": nowhere])
        #expect(refused.status == 1, "\(refused.standardError)")
        #expect("\(refused.lines)\(refused.standardError)".contains(nowhere.dropFirst(7)), "\(refused.lines) \(refused.standardError)")
        let direct = try fixture.sendHTTP2(Self.sendFlags(fixture), environment: ["https_proxy": nowhere])
        #expect(direct.status == 0, "no --proxy: the environment is not read. \(direct.standardError)")
        let excepted = try fixture.sendHTTP2(
            Self.sendFlags(fixture) + ["--proxy", "env"], environment: ["https_proxy": nowhere, "no_proxy": "127.0.0.1"])
        #expect(excepted.status == 0, "no_proxy lists the host: \(excepted.standardError)")
        let http2 = try #require(try fixture.stop()["http2"] as? [String: Any])
        #expect(http2["accepted"] as? Int == 4, "through tinyproxy twice, straight twice: \(http2)")
    }

    @Test(
        "a malformed --proxy exits 2, saying why, the password hidden",
        arguments: [
            ("https://proxy:3128", "https:// proxies (TLS to the proxy) are not supported"),
            ("http://proxy", "no port"),
            ("http://user:hunter2@proxy:99999", "\"99999\" is not a port"),
            ("ftp://proxy:21", "the scheme must be http://"),
        ])
    func malformed(url: String, why: String) throws {
        let fixture = try SendFixture(gatewayArguments: ["--http2"])
        let sent = try fixture.sendHTTP2(Self.sendFlags(fixture) + ["--proxy", url])
        #expect(sent.status == 2 && sent.standardError.contains("--proxy: proxy URL") && sent.standardError.contains(why), "\(sent.standardError)")
        #expect(!sent.standardError.contains("hunter2"))
        let bridge = try ApnBridgeConfigTests.run(ApnBridgeTests.tokenFlags(fixture) + ["--proxy", url, "--check-config"])
        #expect(bridge.0 == 2 && bridge.2.contains(why) && !bridge.2.contains("hunter2"), "\(bridge.2)")
        _ = try fixture.stop()
    }

    @Test("apn bridge: proxy as a flag and a configuration key, shown without its password")
    func bridgeConfiguration() throws {
        let fixture = try SendFixture()
        let path = try ApnBridgeConfigTests.writeConfig(fixture, #""proxy": "http://push:hunter2@proxy.example:3128""#)
        let (status, lines, standardError) = try ApnBridgeConfigTests.run(["--config", path, "--check-config"])
        #expect(status == 0, "\(standardError)")
        let shown = try jsonObject(try #require(lines.first))
        #expect(shown["proxy"] as? String == "http://push:***@proxy.example:3128", "\(lines)")
        #expect(!lines[0].contains("hunter2"))
        let typed = try ApnBridgeConfigTests.run(["--config", path, "--proxy", "env", "--check-config"])
        #expect(typed.0 == 0, "\(typed.2)")
        #expect(try jsonObject(try #require(typed.1.first))["proxy"] as? String == "env", "\(typed.1)")
    }

    @Test("--proxy without --http2 is refused")
    func needsHTTP2() throws {
        let fixture = try SendFixture()
        let sent = try fixture.send(["--token", Self.token, "--alert", "Hi", "--proxy", "http://127.0.0.1:3128"])
        #expect(sent.status == 2 && sent.standardError.contains("--proxy"), "\(sent.standardError)")
        _ = try fixture.stop()
    }
}
