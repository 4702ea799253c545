import Foundation
import Testing
import APNTestSupport
import APNTestTraits

/// #42 item 2 for `apn feedback-service`: `--check-config` reads the settings and loads the
/// credentials as a visit would, then prints the effective configuration — a secret by its
/// source, or `***` when typed — or exits 2 naming what is wrong.
@Suite("apn feedback-service --check-config", .threadPerTest, .ownsChildProcesses)
struct ApnFeedbackServiceConfigTests {
    static func run(_ arguments: [String], environment: [String: String] = [:]) throws -> (Int32, [String], String) {
        let apn = try ApnProcess(["feedback-service"] + arguments, environment: environment)
        let (status, standardError) = try apn.waitForExit()
        return (status, try apn.remainingLines(), standardError)
    }

    @Test func printsTheEffectiveConfigurationWithSecretsHidden() throws {
        let fixture = try SendFixture()
        let path = fixture.path("service.json")
        try #"{"certs": "\#(fixture.certs)", "store": "\#(fixture.path("t.sqlite"))", "interval": 60, "passphrase": {"env": "APN_TEST_PASS"}}"#
            .write(toFile: path, atomically: true, encoding: .utf8)
        let (status, lines, standardError) = try Self.run(
            ["--config", path, "--batch-size", "50", "--check-config"], environment: ["APN_TEST_PASS": "hunter2"])
        #expect(status == 0, "\(standardError)")
        let shown = try jsonObject(try #require(lines.first))
        #expect(shown["interval"] as? Int == 60 && shown["batch_size"] as? Int == 50, "the file's, a typed one over it")
        #expect((shown["passphrase"] as? [String: String]) == ["env": "APN_TEST_PASS"], "by its source")
        #expect(!lines[0].contains("hunter2"))
        #expect(!FileManager.default.fileExists(atPath: fixture.path("t.sqlite")), "nothing opened")

        let (typedStatus, typed, _) = try Self.run(
            ["--store", fixture.path("t.sqlite"), "--certs", fixture.certs, "--passphrase", "hunter2", "--check-config"])
        #expect(typedStatus == 0 && typed.count == 1)
        #expect(typed.first?.contains(#""passphrase":"***""#) == true && typed.first?.contains("hunter2") == false, "\(typed)")
    }

    @Test func credentialsThatDoNotLoadExit2() throws {
        let fixture = try SendFixture()
        let (status, lines, standardError) = try Self.run(
            ["--store", fixture.path("t.sqlite"), "--cert", fixture.path("missing.pem"), "--key", fixture.path("certs/client.key"),
             "--check-config"])
        #expect(status == 2 && lines.isEmpty)
        #expect(standardError.contains("missing.pem"), "\(standardError)")
    }
}
