import Foundation
import Testing
import APNTestSupport
import APNTestTraits

@Suite("apn send", .threadPerTest, .ownsChildProcesses)
struct ApnSendTests {
    static let good = [String(repeating: "11", count: 32), String(repeating: "22", count: 32), String(repeating: "33", count: 32)]

    @Test("a tokens file: comments and blanks skipped, a bad line reported by number, a refused token listed, exit 1")
    func tokensFile() throws {
        let fixture = try SendFixture(gatewayArguments: ["--reject", Self.good[1]])
        let tokens = try fixture.file("tokens.txt", "# recipients\n\(Self.good[0])\n\n  \(Self.good[1])\nnot-a-token\n\(Self.good[2])\r\n")
        let (status, lines, standardError) = try fixture.send(["--tokens-file", tokens, "--alert", "Hi", "--badge", "2"])
        #expect(status == 1, "\(standardError)")
        let bad = try #require(lines.first { $0["line"] != nil })
        #expect(bad["line"] as? Int == 5)
        #expect(bad["token"] as? String == "not-a-token")
        let rejected = try #require(lines.first { $0["outcome"] as? String == "rejected" })
        #expect(rejected["token"] as? String == Self.good[1])
        #expect(rejected["status"] as? Int == 8)
        let summary = try #require(lines.last)
        #expect(summary["accepted"] as? Int == 2)
        #expect(summary["invalid_tokens"] as? Int == 1)
        #expect(summary["confirmed"] as? Bool == true)
        #expect(try fixture.stop()["accepted"] as? Int == 2)
    }

    /// Issue #26 row 6: the library takes 1 to 100 bytes now; the binary gateway's frames
    /// carry 32, so `apn send` without --http2 lists the others as invalid tokens.
    @Test("binary: an 8-byte token is an invalid token line saying why; the 32-byte one is sent")
    func binaryRefusesOtherTokenLengths() throws {
        let fixture = try SendFixture(gatewayArguments: [])
        let (status, lines, standardError) = try fixture.send(["--token", "0123456789abcdef", "--token", Self.good[0], "--alert", "Hi"])
        #expect(status == 1, "\(standardError)")
        let bad = try #require(lines.first { $0["token"] as? String == "0123456789abcdef" })
        #expect(bad["outcome"] as? String == "invalid_token")
        #expect(bad["error"] as? String
            == "device token is 8 bytes; the binary interface carries 32-byte tokens only (Apple's HTTP/2 API takes 1 to 100)")
        #expect(lines.last?["accepted"] as? Int == 1)
        #expect(try fixture.stop()["accepted"] as? Int == 1)
    }

    /// The file is read a megabyte at a time: a line across a chunk's end, CRLF lines, a
    /// bad line past the first chunk (its number counted across chunks) and a last line
    /// without a newline.
    @Test("a tokens file larger than a read: every line once, a bad one reported by number")
    func largeTokensFile() throws {
        let fixture = try SendFixture(gatewayArguments: [])
        var lines = (0..<17_000).map { String(format: "%016x", $0) + String(repeating: "c7", count: 24) }
        lines[16_499] = "zz"
        lines[16_131] += "\r"  // about where the first megabyte ends
        let tokens = try fixture.file("many.txt", lines.joined(separator: "\n"))
        let (status, output, standardError) = try fixture.send(["--tokens-file", tokens, "--alert", "Hi", "--fast"])
        #expect(status == 1, "a bad line: \(standardError)")
        let bad = try #require(output.first { $0["line"] != nil })
        #expect(bad["line"] as? Int == 16_500 && bad["token"] as? String == "zz")
        let summary = try #require(output.last)
        #expect(summary["accepted"] as? Int == 16_999 && summary["invalid_tokens"] as? Int == 1)
        #expect(try fixture.stop()["accepted"] as? Int == 16_999)
    }

    /// A tokens file of 4 MiB or more is read on a thread of its own while the first of its
    /// tokens are sent (``RecipientSupply``): every device once, after the `--token` values,
    /// each outcome on its own device, bad lines numbered and printed, the totals whole.
    @Test("a tokens file read while the send begins: every line once, in order, outcomes on the right devices")
    func tokensFileReadWhileSending() throws {
        let token = { (index: Int) in String(format: "%016x", index) + String(repeating: "e9", count: 24) }
        let refused = token(64_999)
        let fixture = try SendFixture(gatewayArguments: ["--reject", refused])
        var lines = (0..<70_000).map(token)
        lines[3] = "# a comment"
        lines[40_000] = "zz"
        lines[69_998] = "abcd"  // hex, but not 32 bytes
        let tokens = try fixture.file("streamed.txt", lines.joined(separator: "\n") + "\n")
        #expect(try FileManager.default.attributesOfItem(atPath: tokens)[.size] as? Int ?? 0 >= 4 << 20, "read while sending")
        let (status, output, standardError) = try fixture.send([
            "--token", Self.good[0], "--tokens-file", tokens, "--alert", "Hi", "--fast",
        ])
        #expect(status == 1, "bad lines and a refusal: \(standardError)")
        let bad = output.filter { $0["line"] != nil }
        #expect(bad.map { $0["line"] as? Int } == [40_001, 69_999])
        #expect(bad.map { $0["token"] as? String } == ["zz", "abcd"])
        let rejected = output.filter { $0["outcome"] as? String == "rejected" }
        #expect(rejected.map { $0["token"] as? String } == [refused], "the outcome on its own device")
        let summary = try #require(output.last)
        #expect(summary["total"] as? Int == 1 + 70_000 - 3)
        #expect(summary["accepted"] as? Int == 1 + 70_000 - 3 - 1)
        #expect(summary["invalid_tokens"] as? Int == 2)
        #expect(summary["confirmed"] as? Bool == true)
        #expect(try fixture.stop()["accepted"] as? Int == 1 + 70_000 - 3 - 1)
    }

    @Test("a large tokens file of comments alone is bad usage, told before anything is sent (exit 2)")
    func largeTokensFileOfCommentsAlone() throws {
        let fixture = try SendFixture(gatewayArguments: [])
        let comments = try fixture.file("comments.txt", String(repeating: "# nothing to send here, only a comment line\n", count: 100_000))
        let (status, _, standardError) = try fixture.send(["--tokens-file", comments, "--alert", "Hi"])
        #expect(status == 2)
        #expect(standardError.contains("no recipients"), "\(standardError)")
        #expect(try fixture.stop()["accepted"] as? Int == 0)
    }

    /// The library keeps a socket open (node-apn 1.7.5+); `apn send` does not: the gateway's
    /// close that answers its confirmation marker is not followed by a connection made only
    /// to be shut down.
    @Test("one connection for a send: none reopened after the confirmation's close")
    func oneConnectionForASend() throws {
        let fixture = try SendFixture(gatewayArguments: [])
        let (status, lines, standardError) = try fixture.send(["--token", Self.good[0], "--token", Self.good[2], "--alert", "Hi"])
        #expect(status == 0, "\(standardError)")
        #expect(lines.last?["confirmed"] as? Bool == true)
        let gateway = try fixture.stop()
        #expect(gateway["accepted"] as? Int == 2)
        #expect(gateway["connections"] as? Int == 1)
    }

    @Test("tokens from standard input (--tokens-file -), a bad line reported by number")
    func tokensFromStandardInput() throws {
        let fixture = try SendFixture(gatewayArguments: [])
        let input = "# from a pipe\n\(Self.good[0])\nzz\n\(Self.good[2])\n"
        let (status, lines, standardError) = try fixture.send(["--tokens-file", "-", "--alert", "Hi"], input: Array(input.utf8))
        #expect(status == 1, "a bad line: \(standardError)")
        let bad = try #require(lines.first { $0["line"] != nil })
        #expect(bad["line"] as? Int == 3)
        let summary = try #require(lines.last)
        #expect(summary["accepted"] as? Int == 2)
        #expect(try fixture.stop()["accepted"] as? Int == 2)
    }

    @Test("--priority 5 without --format sends command 2, the only one that carries it")
    func priorityChoosesTheFrameFormat() throws {
        let fixture = try SendFixture(gatewayArguments: [])
        let (status, _, standardError) = try fixture.send(["--token", Self.good[0], "--alert", "later", "--priority", "5"])
        #expect(status == 0, "\(standardError)")
        #expect(try fixture.stop()["accepted"] as? Int == 1)
    }

    @Test("--payload is sent as given, --all lists every outcome, exit 0")
    func payloadAsGiven() throws {
        let fixture = try SendFixture()
        let payload = #"{"z":1.50, "aps":{"alert":"é"},"n":1e3}"#
        let (status, lines, standardError) = try fixture.send([
            "--token", Self.good[0], "--token", Self.good[2], "--payload", payload, "--all", "--format", "frame",
            "--priority", "5", "--expiry", "1700000000",
        ])
        #expect(status == 0, "\(standardError)")
        #expect(lines.count == 3)
        #expect(lines.prefix(2).allSatisfy { $0["outcome"] as? String == "accepted" })
        #expect(lines.last?["accepted"] as? Int == 2)
    }

    @Test("bad usage exits 2 with a clear message", arguments: [
        (["--bogus"], "unknown option --bogus"),
        (["--token", "11", "--payload", #"{"aps":{"badge":01}}"#], "payload JSON: at byte 17: "),
        (["--token", "11", "--payload", "[1]"], "payload JSON: at byte 0: expected an object"),
        (["--tokens-file", "/nonexistent/tokens.txt", "--alert", "x"], "/nonexistent/tokens.txt does not exist"),
        // Opened, then a read fails (a directory: EISDIR), as a file failing mid-read does; it
        // runs as root too, where a file without permissions is read all the same.
        (["--tokens-file", "/", "--alert", "x"], "--tokens-file: / cannot be read: Is a directory"),
        (["--alert", "x"], "no recipients"),
        (["--token", "11", "--alert", "x", "--priority", "5", "--format", "enhanced"], "--priority 5 needs --format frame"),
        (["--token", "11", "--alert", "x", "--expiry", "1", "--format", "simple"], "--expiry needs --format enhanced or frame"),
        (["--token", "11", "--custom", "k=nope"], "--custom k: invalid JSON"),
        (["--token", "11", "--format", "http2"], "--format"),
    ])
    func badUsage(arguments: [String], message: String) throws {
        let apn = try ApnProcess(["send"] + arguments)
        let (status, standardError) = try apn.waitForExit()
        #expect(status == 2)
        #expect(standardError.contains(message), "\(standardError)")
    }

    @Test("an unreadable tokens file exits 2")
    func unreadableTokensFile() throws {
        let fixture = try SendFixture()
        let tokens = try fixture.file("locked.txt", Self.good[0] + "\n")
        chmod(tokens, 0)
        guard FileManager.default.contents(atPath: tokens) == nil else { return }  // running as root
        let (status, _, standardError) = try fixture.send(["--tokens-file", tokens, "--alert", "x"])
        #expect(status == 2)
        #expect(standardError.contains("cannot be read"), "\(standardError)")
    }

    @Test("a missing certificate fails every notification, names the file and exits 1")
    func missingCertificate() throws {
        let apn = try ApnProcess([
            "send", "--cert", "/nonexistent/c.pem", "--key", "/nonexistent/k.pem", "--address", "127.0.0.1:9",
            "--token", Self.good[0], "--alert", "x",
        ])
        let (status, standardError) = try apn.waitForExit()
        #expect(status == 1)
        #expect(standardError.contains("/nonexistent/c.pem"), "\(standardError)")
        let lines = try apn.remainingLines().map(jsonObject)
        #expect(lines.first?["outcome"] as? String == "failed")
        #expect(lines.last?["failed"] as? Int == 1)
    }
}
