import Foundation
import Glibc
import Testing
import APNTestSupport
import APNTestTraits

/// #42 item 2: `apn bridge --config FILE` carries every flag and the tenants; a typed flag
/// overrides it; `--check-config` prints the effective configuration with secrets shown by
/// their source, or exits 2 naming what is wrong.
@Suite("apn bridge --config", .threadPerTest, .ownsChildProcesses)
struct ApnBridgeConfigTests {
    /// A configuration file in the fixture's folder: the fixture's certificates and one
    /// token tenant, plus `extra` members.
    static func writeConfig(_ fixture: SendFixture, _ extra: String = "", name: String = "bridge.json") throws -> String {
        let path = fixture.path(name)
        let json = """
            {"certs": "\(fixture.certs)", "window": 7\(extra.isEmpty ? "" : ", " + extra),
             "tenants": [{"name": "app", "uid": "com.example.app", "topic": "com.example.app",
                          "key_id": "MOCKKEY001", "team_id": "MOCKTEAM01", "p8": "\(fixture.path("certs/AuthKey_MOCKKEY001.p8"))"}]}
            """
        try json.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// `apn bridge ARGUMENTS` to its exit: status, standard output, standard error.
    static func run(_ arguments: [String], environment: [String: String] = [:]) throws -> (Int32, [String], String) {
        let apn = try ApnProcess(["bridge"] + arguments, environment: environment)
        let (status, standardError) = try apn.waitForExit()
        return (status, try apn.remainingLines(), standardError)
    }

    @Test("--check-config: the file's flags, a typed one over them, the store by its source, the tenants; nothing started")
    func checkConfig() throws {
        let fixture = try SendFixture()
        let path = try Self.writeConfig(fixture, #""store": {"env": "APN_TEST_STORE"}, "port": 0"#)
        let (status, lines, standardError) = try Self.run(
            ["--config", path, "--window", "9", "--check-config"],
            environment: ["APN_TEST_STORE": "postgresql://apn:hunter2@db.example/apn"])
        #expect(status == 0, "\(standardError)")
        #expect(lines.count == 1 && standardError.isEmpty)
        let shown = try jsonObject(try #require(lines.first))
        #expect(shown["window"] as? Int == 9, "typed overrides the file")
        #expect(shown["port"] as? Int == 0)
        #expect(shown["feedback_port"] as? Int == 2196, "a default is shown")
        #expect(shown["certs"] as? String == fixture.certs)
        #expect((shown["store"] as? [String: String]) == ["env": "APN_TEST_STORE"], "by its source")
        #expect(!lines[0].contains("hunter2"))
        let tenants = try #require(shown["tenants"] as? [[String: Any]])
        #expect(tenants.count == 1 && tenants[0]["name"] as? String == "app" && tenants[0]["key_id"] as? String == "MOCKKEY001")

        // A store typed: its password is not shown either.
        let (_, typed, _) = try Self.run(
            ["--config", path, "--store", "postgresql://apn:hunter2@db.example/apn", "--check-config"],
            environment: ["APN_TEST_STORE": "x"])
        #expect(typed.count == 1 && !typed[0].contains("hunter2") && typed[0].contains("db.example"), "\(typed)")

        // What it prints is a configuration file that gives the same.
        let again = fixture.path("again.json")
        try lines[0].write(toFile: again, atomically: true, encoding: .utf8)
        let (status2, lines2, error2) = try Self.run(
            ["--config", again, "--check-config"], environment: ["APN_TEST_STORE": "postgresql://apn:hunter2@db.example/apn"])
        #expect(status2 == 0 && lines2 == lines, "\(error2)")
    }

    @Test(
        "--check-config exits 2 naming what is wrong",
        arguments: [
            (#""prot": 1"#, [String](), #"unknown key "prot""#),
            (#""grace": "many""#, [], #"--grace: "many" is not a whole number"#),
            (#""store": {"env": "APN_TEST_UNSET"}"#, [], "APN_TEST_UNSET is not set"),
            ("", ["--topic", "x"], #"gives "tenants": it excludes --topic"#),
            (#""server_cert": "/nonexistent.pem", "server_key": "/nonexistent.key""#, [], "the bridge's certificates"),
        ])
    func checkConfigRefuses(_ extra: String, _ typed: [String], _ expected: String) throws {
        let fixture = try SendFixture()
        let path = try Self.writeConfig(fixture, extra)
        let (status, lines, standardError) = try Self.run(["--config", path, "--check-config"] + typed)
        #expect(status == 2)
        #expect(lines.isEmpty)
        #expect(standardError.contains(expected), "\(standardError)")
    }

    @Test("a bridge from the file alone: a notification through it, the window from the file")
    func startsFromTheFile() throws {
        let running = try ApnBridgeTests.Running { fixture in ["--config", try Self.writeConfig(fixture)] }
        let (status, lines) = try running.send(["--token", ApnBridgeTests.delivered, "--alert", "hi"])
        #expect(status == 0, "\(lines)")
        let (summary, _, _) = try running.stop()
        #expect(summary["delivered"] as? Int == 1, "\(summary)")
    }
}
