import Foundation
import Testing
import APNTestSupport
import APNTestTraits

/// Issue #27 items 4, 5 and 10: messages a person can act on, empty and dangerous input
/// refused, `apn feedback --once` with nothing to read, the 256-byte limit in the CLI's terms.
@Suite("apn messages and refusals", .threadPerTest, .ownsChildProcesses)
struct ApnMessagesTests {
    static let token = String(repeating: "7e", count: 32)

    static func apn(_ arguments: [String], directory: String? = nil) throws -> (status: Int32, output: [String], error: String) {
        let apn = try ApnProcess(arguments, directory: directory)
        let (status, error) = try apn.waitForExit(timeout: 60)
        return (status, try apn.remainingLines(), error)
    }

    @Test("missing or half-given credentials exit 2 naming the flags, before anything is sent", arguments: [
        (["send", "--token", token, "--alert", "x"], "no credentials: give --certs DIR, --cert FILE with --key FILE, or --pfx FILE"),
        (["send", "--http2", "--token", token, "--alert", "x"], "or a provider token (--key-id, --team-id and --p8"),
        (["send", "--cert", "c.pem", "--token", token, "--alert", "x"], "--cert needs --key FILE"),
        (["send", "--key", "k.pem", "--token", token, "--alert", "x"], "--key needs --cert FILE"),
        (["feedback", "--once"], "no credentials"),
        (["feedback-service", "--store", "s.sqlite", "--once"], "no credentials"),
    ])
    func missingCredentials(arguments: [String], message: String) throws {
        let folder = try ApnTokensTests.Folder()
        let result = try Self.apn(arguments, directory: folder.path)
        #expect(result.status == 2, "\(result.error)")
        #expect(result.error.contains(message), "\(result.error)")
        #expect(result.output.isEmpty, "no summary claiming a send: \(result.output)")
        #expect(!FileManager.default.fileExists(atPath: (folder.path as NSString).appendingPathComponent("s.sqlite")))
    }

    @Test("messages carry no Swift case names and say a thing once")
    func plainMessages() throws {
        let credentials = try Self.apn([
            "send", "--cert", "/nonexistent/c.pem", "--key", "/nonexistent/k.pem", "--address", "127.0.0.1:9",
            "--token", Self.token, "--alert", "x",
        ])
        #expect(credentials.status == 1)
        #expect(credentials.error.contains("/nonexistent/c.pem") && !credentials.error.contains("initialisationFailed"), "\(credentials.error)")
        let line = try jsonObject(try #require(credentials.output.first))
        #expect(line["error"] as? String == "initialisation_failed", "the code stays, snake_case, in its key")
        #expect((line["description"] as? String)?.hasPrefix("failed: credentials unusable") == true, "\(line)")

        let json = try Self.apn(["send", "--certs", "c", "--token", Self.token, "--payload", #"{"aps":{"badge":01}}"#])
        #expect(json.status == 2)
        #expect(json.error.contains("payload JSON: at byte 17: ") && !json.error.contains("invalidNumber"), "\(json.error)")

        let certs = try ApnTokensTests.Folder()
        #expect(try Self.apn(["certs", certs.path, "--force"]).status == 0)
        let refused = try Self.apn(["feedback", "--once", "--certs", certs.path, "--address", "127.0.0.1:9"])
        #expect(refused.status == 1)
        #expect(refused.error.contains("TCP connect failed") && !refused.error.contains("TLS connect"), "\(refused.error)")
        #expect(!refused.error.contains("connectionFailed"), "\(refused.error)")

        let folder = try ApnTokensTests.Folder()
        let garbage = try folder.file("garbage.sqlite", String(repeating: "not a database ", count: 100))
        let corrupt = try Self.apn(["tokens", "list", "--store", garbage])
        #expect(corrupt.status == 1)
        #expect(corrupt.error.components(separatedBy: "file is not a database").count == 2, "once: \(corrupt.error)")
    }

    @Test("no payload flag exits 2 unless --payload '{}'; an empty tokens file exits 2")
    func emptyInput() throws {
        let fixture = try SendFixture()
        let none = try fixture.send(["--token", Self.token])
        #expect(none.status == 2 && none.standardError.contains("no payload: give --alert TEXT"), "\(none.standardError)")
        let empty = try fixture.send(["--token", Self.token, "--payload", "{}"])
        #expect(empty.status == 0, "\(empty.standardError)")
        let blank = try fixture.file("blank.txt", "# nobody yet\n\n")
        let noTokens = try fixture.send(["--tokens-file", blank, "--alert", "Hi"])
        #expect(noTokens.status == 2, "\(noTokens.standardError)")
        #expect(noTokens.standardError.contains("no recipients: \(blank) holds no token"), "\(noTokens.standardError)")
        #expect(try fixture.stop()["accepted"] as? Int == 1)
    }

    @Test("apn certs refuses to replace a set without --force, and prints JSON")
    func certsForce() throws {
        let folder = try ApnTokensTests.Folder()
        let directory = (folder.path as NSString).appendingPathComponent("certs")
        let first = try Self.apn(["certs", directory])
        #expect(first.status == 0, "\(first.error)")
        let written = try jsonObject(try #require(first.output.first))
        #expect(written["dir"] as? String == directory)
        #expect((written["files"] as? [String])?.first == "ca.pem")
        #expect(written["provider_key_id"] as? String == "MOCKKEY001")
        let ca = try String(contentsOfFile: (directory as NSString).appendingPathComponent("ca.pem"), encoding: .utf8)

        let again = try Self.apn(["certs", directory])
        #expect(again.status == 1 && again.output.isEmpty)
        #expect(again.error.contains("already holds ca.pem") && again.error.contains("--force"), "\(again.error)")
        #expect(try String(contentsOfFile: (directory as NSString).appendingPathComponent("ca.pem"), encoding: .utf8) == ca)

        let forced = try Self.apn(["certs", directory, "--force"])
        #expect(forced.status == 0, "\(forced.error)")
        #expect(try String(contentsOfFile: (directory as NSString).appendingPathComponent("ca.pem"), encoding: .utf8) != ca)
    }

    @Test("apn feedback --once with nothing to read says so on standard error, exit 0")
    func feedbackNothingToRead() throws {
        let fixture = try SendFixture()
        let address = try #require(fixture.feedbackAddress)
        let result = try Self.apn(["feedback", "--once", "--certs", fixture.certs, "--address", address])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output.isEmpty)
        #expect(result.error.contains("apn feedback: nothing to read"), "\(result.error)")
        _ = try fixture.stop()
    }

    @Test("over the 256-byte enhanced limit: the CLI's ways out; --trim fits it and sends")
    func payloadLimit() throws {
        let fixture = try SendFixture()
        let long = String(repeating: "long text ", count: 40)
        let over = try fixture.send(["--token", Self.token, "--format", "enhanced", "--alert", long])
        #expect(over.status == 2)
        for words in ["over the 256-byte limit of command 1 (enhanced)", "--format frame (2048 bytes)", "--trim"] {
            #expect(over.standardError.contains(words), "\(over.standardError)")
        }
        #expect(!over.standardError.contains("trim(toLength"), "\(over.standardError)")
        let trimmed = try fixture.send(["--token", Self.token, "--format", "enhanced", "--alert", long, "--trim"])
        #expect(trimmed.status == 0, "\(trimmed.standardError)")
        // A payload given whole: only the ways out that apply to it; --trim cannot cut it.
        let json = #"{"aps":{"alert":"\#(long)"}}"#
        let whole = try fixture.send(["--token", Self.token, "--format", "enhanced", "--payload", json])
        #expect(whole.status == 2 && whole.standardError.contains("a smaller --payload"), "\(whole.standardError)")
        #expect(!whole.standardError.contains("--trim") && !whole.standardError.contains("--alert"), "\(whole.standardError)")
        let withTrim = try fixture.send(["--token", Self.token, "--payload", json, "--trim"])
        #expect(withTrim.status == 2 && withTrim.standardError.contains("--trim cannot be combined with --payload"), "\(withTrim.standardError)")
        #expect(try fixture.stop()["accepted"] as? Int == 1)
    }
}
