import APNTLS
import Foundation
import Testing
import APNTestSupport
import APNTestTraits

/// Issue #27 item 3: the passphrase and the provider token from the environment or a file,
/// not only the command line (where `ps` shows them), and never echoed.
@Suite("apn secrets", .threadPerTest, .ownsChildProcesses)
struct ApnSecretsTests {
    static let token = String(repeating: "5a", count: 32)
    static let password = "pa55-w0rd-sekrit"

    @Test("the PKCS#12 password from APN_PASSPHRASE or --passphrase-file; a wrong one is refused without being echoed")
    func passphrase() throws {
        let fixture = try SendFixture(certsArguments: ["--p12-password", Self.password])
        let bundle = fixture.path("certs/client.p12")
        let ca = fixture.path("certs/ca.pem")
        func send(_ extra: [String], environment: [String: String] = [:]) throws -> (Int32, String, String) {
            let apn = try ApnProcess(
                ["send", "--pfx", bundle, "--ca", ca, "--address", fixture.address, "--token", Self.token, "--alert", "Hi"]
                    + extra, environment: environment)
            let (status, error) = try apn.waitForExit(timeout: 30)
            return (status, try apn.remainingLines().joined(separator: "\n"), error)
        }
        let fromEnvironment = try send([], environment: ["APN_PASSPHRASE": Self.password])
        #expect(fromEnvironment.0 == 0, "\(fromEnvironment.2)")
        let file = try fixture.file("passphrase.txt", Self.password + "\n")
        let fromFile = try send(["--passphrase-file", file], environment: ["APN_PASSPHRASE": "not it"])
        #expect(fromFile.0 == 0, "the file wins over the environment: \(fromFile.2)")

        let wrong = "wr0ng-" + Self.password
        let refused = try send([], environment: ["APN_PASSPHRASE": wrong])
        #expect(refused.0 == 1)
        #expect(!(refused.1 + refused.2).contains(wrong), "the passphrase was echoed: \(refused.1) \(refused.2)")
        #expect(refused.2.contains("client.p12"), "\(refused.2)")

        let both = try send(["--passphrase", "x", "--passphrase-file", file])
        #expect(both.0 == 2 && both.2.contains("--passphrase and --passphrase-file exclude each other"))
        let missing = try send(["--passphrase-file", fixture.path("none.txt")])
        #expect(missing.0 == 2 && missing.2.contains("the file given with --passphrase-file does not exist"), "\(missing.2)")
        #expect(try fixture.stop()["accepted"] as? Int == 2)
    }

    @Test("a provider token from APN_PROVIDER_TOKEN or --provider-token-file, never echoed")
    func providerToken() throws {
        let fixture = try SendFixture(gatewayArguments: ["--http2"])
        let key = try ES256SigningKey(p8File: fixture.path("certs/AuthKey_MOCKKEY001.p8"))
        let jwt = try JSONWebToken.sign(
            ProviderTokenClaims(keyID: "MOCKKEY001", teamID: "MOCKTEAM01", issuedAt: Int64(Date().timeIntervalSince1970)),
            with: key)
        let arguments = ["--topic", "com.example.app", "--token", Self.token, "--alert", "Hi", "--all"]
        let fromEnvironment = try fixture.sendHTTP2(arguments, environment: ["APN_PROVIDER_TOKEN": jwt])
        #expect(fromEnvironment.status == 0, "\(fromEnvironment.standardError)")
        #expect(fromEnvironment.lines.first?["outcome"] as? String == "accepted")
        let file = try fixture.file("token.jwt", jwt + "\n")
        let fromFile = try fixture.sendHTTP2(arguments + ["--provider-token-file", file])
        #expect(fromFile.status == 0, "\(fromFile.standardError)")

        // A token the mock refuses: its answer is reported, the token itself is not.
        let forged = jwt.dropLast(4) + "AAAA"
        let refused = try fixture.sendHTTP2(arguments, environment: ["APN_PROVIDER_TOKEN": String(forged)])
        #expect(refused.status == 1)
        #expect(refused.lines.first?["reason"] as? String == "InvalidProviderToken", "\(refused.lines)")
        let everything = "\(refused.lines)" + refused.standardError
        #expect(!everything.contains(String(forged.prefix(40))), "the token was echoed")
        let mixed = try fixture.sendHTTP2(arguments + ["--provider-token-file", file, "--key-id", "K"])
        #expect(mixed.status == 2 && mixed.standardError.contains("--provider-token-file excludes --key-id"))
        // A variable left set does not override a certificate given by flag: the flag wins.
        let certificate = try fixture.sendHTTP2(
            ["--certs", fixture.certs, "--token", Self.token, "--alert", "Hi", "--all"],
            environment: ["APN_PROVIDER_TOKEN": String(forged)])
        #expect(certificate.status == 0, "\(certificate.standardError)")
        #expect(certificate.lines.first?["outcome"] as? String == "accepted", "\(certificate.lines)")
        // An empty secret is a usage error, not an empty token.
        let empty = try fixture.sendHTTP2(arguments, environment: ["APN_PROVIDER_TOKEN": ""])
        #expect(empty.status == 2 && empty.standardError.contains("$APN_PROVIDER_TOKEN is empty"), "\(empty.standardError)")
        _ = try fixture.stop()
    }

    @Test("apn certs takes client.p12's password from --p12-password-file or APN_P12_PASSWORD, never echoed")
    func p12Password() throws {
        let folder = try ApnTokensTests.Folder()
        let file = try folder.file("p12.txt", Self.password + "\n")
        func certs(_ name: String, _ extra: [String], environment: [String: String] = [:]) throws -> (Int32, String, String) {
            let apn = try ApnProcess(["certs", folder.path + "/" + name] + extra, environment: environment)
            let (status, error) = try apn.waitForExit(timeout: 60)
            return (status, try apn.remainingLines().joined(separator: "\n"), error)
        }
        func opens(_ name: String, with password: String) -> Bool {
            (try? TLSCredentials(pkcs12File: folder.path + "/" + name + "/client.p12", password: password)) != nil
        }
        let fromFile = try certs("file", ["--p12-password-file", file], environment: ["APN_P12_PASSWORD": "not it"])
        #expect(fromFile.0 == 0, "\(fromFile.2)")
        #expect(!(fromFile.1 + fromFile.2).contains(Self.password), "the password was echoed")
        #expect(opens("file", with: Self.password) && !opens("file", with: "not it") && !opens("file", with: ""))
        let fromEnvironment = try certs("environment", [], environment: ["APN_P12_PASSWORD": Self.password])
        #expect(fromEnvironment.0 == 0, "\(fromEnvironment.2)")
        #expect(opens("environment", with: Self.password) && !opens("environment", with: ""))

        let both = try certs("both", ["--p12-password", "x", "--p12-password-file", file])
        #expect(both.0 == 2 && both.2.contains("--p12-password and --p12-password-file exclude each other"), "\(both.2)")
        let missing = try certs("missing", ["--p12-password-file", folder.path + "/none.txt"])
        #expect(missing.0 == 2 && missing.2.contains("the file given with --p12-password-file does not exist"), "\(missing.2)")
        let empty = try certs("empty", [], environment: ["APN_P12_PASSWORD": ""])
        #expect(empty.0 == 2 && empty.2.contains("$APN_P12_PASSWORD is empty"), "\(empty.2)")
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/both"), "nothing written on a usage error")
    }
}
