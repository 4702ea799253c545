@testable import apn
import APN
import APNBridge
import Foundation
import Testing

/// #42 item 2: `--config FILE` carries every flag of a long-running command; a flag typed
/// overrides the file; secrets come from the environment or a file; every mistake is named.
@Suite struct ConfigFileTests {
    static let groups = [
        FlagGroup([
            .valued("--config", "FILE", "the file"),
            .valued("--port", "N", "a port", default: "2195"),
            .valued("--feedback-port", "N", "another"),
            .valued("--store", "FILE|URL", "the store"),
            .repeated("--client-uid", "UID", "repeatable"),
            .toggle("--sandbox", "a switch"),
            .toggle("--check-config", "typed only"),
        ])
    ]

    /// Writes `json` to a temporary file and reads it with `arguments` typed before it.
    static func merged(
        _ json: String, typed arguments: [String] = [], environment: [String: String] = [:]
    ) throws -> (Flags, ConfigFile) {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("apn-config-\(UUID()).json").path
        try json.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let typed = try Flags(["--config", path] + arguments, groups: groups)
        let file = try ConfigFile.read(
            path, flags: groups.flatMap(\.flags), commandKeys: ["tenants"], excluded: ["--check-config"],
            environment: environment)
        var flags = typed
        flags.fill(values: file.values, switches: file.switches)
        return (flags, file)
    }

    @Test func everyKindOfValueAndAFlagTypedWins() throws {
        let (flags, file) = try Self.merged(
            #"{"port": 2295, "feedback_port": "2296", "client_uid": ["a", "b"], "sandbox": true, "tenants": [1]}"#,
            typed: ["--port", "1"])
        #expect(flags.value("--port") == "1", "typed overrides the file")
        #expect(flags.value("--feedback-port") == "2296")
        #expect(flags.all("--client-uid") == ["a", "b"])
        #expect(flags.has("--sandbox"))
        #expect(file.document["tenants"] == APN.JSONValue.array([.number(1)]), "the command's own keys are kept for it")
        let (off, _) = try Self.merged(#"{"sandbox": false}"#)
        #expect(!off.has("--sandbox"))
    }

    @Test func secretsFromTheEnvironmentOrAFileAreKnownByTheirSource() throws {
        let secret = FileManager.default.temporaryDirectory.appendingPathComponent("apn-secret-\(UUID())").path
        try "postgresql://u:pw@h/db\n".write(toFile: secret, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: secret) }
        let (flags, file) = try Self.merged(#"{"store": {"file": "\#(secret)"}}"#)
        #expect(flags.value("--store") == "postgresql://u:pw@h/db", "one trailing line break dropped")
        #expect(file.sources["--store"] == .file(secret))
        let (fromEnvironment, other) = try Self.merged(#"{"store": {"env": "S"}}"#, environment: ["S": "x.sqlite"])
        #expect(fromEnvironment.value("--store") == "x.sqlite")
        #expect(other.sources["--store"] == .environment("S"))
    }

    @Test(
        "each mistake is named",
        arguments: [
            (#"{"prot": 1}"#, #"unknown key "prot""#),
            (#"{"config": "x"}"#, #"unknown key "config""#),
            (#"{"check_config": true}"#, #"unknown key "check_config""#),
            (#"{"port": 1.5}"#, "port must be a string, a whole number"),
            (#"{"port": [1]}"#, "port must be a string"),
            (#"{"sandbox": "yes"}"#, "sandbox is a switch: true or false"),
            (#"{"store": {"env": "UNSET_HERE"}}"#, "the environment variable UNSET_HERE is not set"),
            (#"{"store": {"file": "/nonexistent/x"}}"#, "no such file: /nonexistent/x"),
            (#"{"store": {"env": "A", "file": "B"}}"#, "store must be"),
            ("[1]", "not a JSON object"),
            (#"{"port": 1"#, "not a JSON object"),
        ])
    func mistakes(_ json: String, _ expected: String) throws {
        let error = try #require(throws: UsageError.self) { try Self.merged(json) }
        #expect(error.message.contains(expected), "\(error.message)")
        #expect(error.message.contains("--config "), "the file is named")
    }

    /// docs/BRIDGE.md's "Operating the bridge" example: every key a flag of `apn bridge` or its
    /// tenants, every value of a kind the flag takes.
    @Test func bridgePagesExampleIsABridgeConfiguration() throws {
        let page = try ApnReadmeSendTests.document("docs/BRIDGE.md")
        let section = try #require(page.range(of: "## Operating the bridge"))
        let start = try #require(page.range(of: "```json\n", range: section.upperBound..<page.endIndex))
        let end = try #require(page.range(of: "```", range: start.upperBound..<page.endIndex))
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("apn-bridge-doc-\(UUID()).json").path
        try String(page[start.upperBound..<end.lowerBound]).write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let file = try ConfigFile.read(
            path, flags: BridgeFlags.groups.flatMap(\.flags), commandKeys: BridgeFlags.fileKeys,
            environment: ["APN_BRIDGE_STORE": "postgresql://apn@db/apn"])
        #expect(file.values["--frame-timeout"] == ["30"] && file.values["--admin"] == ["127.0.0.1:9102"])
        #expect(file.sources["--store"] == .environment("APN_BRIDGE_STORE"))
        let tenants = try BridgeTenants.parse(json: APN.JSONValue.object(file.document).jsonBytes())
        #expect(tenants.all.map(\.name) == ["acme"])
    }

    @Test func aFlagsKeyDropsItsDashes() {
        #expect(ConfigFile.key("--feedback-port") == "feedback_port")
        #expect(ConfigFile.key("--tls-max") == "tls_max")
    }
}
