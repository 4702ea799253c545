import Foundation
import Testing
import APNTestSupport
import APNTestTraits

/// Issue #27 item 2: `--version`, `help SUBCOMMAND`, options before the subcommand, flags
/// declared once (the parser, `--help` and `apn completion` agree), completion scripts.
@Suite("apn conventions", .threadPerTest, .ownsChildProcesses)
struct ApnConventionsTests {
    /// Runs `apn ARGUMENTS`: status, standard output, standard error.
    static func apn(_ arguments: [String], environment: [String: String] = [:]) throws -> (status: Int32, output: String, error: String) {
        let apn = try ApnProcess(arguments, environment: environment)
        let (status, error) = try apn.waitForExit()
        return (status, try apn.remainingLines().joined(separator: "\n"), error)
    }

    /// Every command path (`""`, `send`, `tokens list` …) and the words its completion offers,
    /// read from `apn completion bash`: the declarations, as the executable holds them.
    static func declared() throws -> [String: [String]] {
        let script = try apn(["completion", "bash"])
        #expect(script.status == 0, "\(script.error)")
        var paths: [String: [String]] = [:]
        let pattern = try Regex(#"^        '([a-z -]*)'\) words='([^']*)' ;;$"#)
        for line in script.output.split(separator: "\n") {
            guard let match = try pattern.wholeMatch(in: String(line)) else { continue }
            let path = String(match.output[1].substring ?? "")
            paths[path] = (match.output[2].substring ?? "").split(separator: " ").map(String.init)
        }
        return paths
    }

    @Test("apn --version prints the version; apn with no subcommand says so with the list, exit 2")
    func version() throws {
        let version = try Self.apn(["--version"])
        #expect(version.status == 0)
        #expect(try Regex(#"^apn \d+\.\d+\.\d+(-[a-z0-9.]+)?$"#).wholeMatch(in: version.output) != nil, "\(version.output)")
        let bare = try Self.apn([])
        #expect(bare.status == 2)
        #expect(bare.error.contains("missing subcommand") && bare.error.contains("feedback-service"), "\(bare.error)")
        let misspelt = try Self.apn(["--versio"])
        #expect(misspelt.status == 2 && misspelt.error.contains("unknown option --versio"), "\(misspelt.error)")
    }

    @Test("apn help SUBCOMMAND prints that subcommand's usage, as SUBCOMMAND --help does", arguments: [
        ["send"], ["tokens"], ["tokens", "list"], ["mock-gateway"], ["completion"],
    ])
    func helpSubcommand(path: [String]) throws {
        let help = try Self.apn(["help"] + path)
        let flag = try Self.apn(path + ["--help"])
        #expect(help.status == 0 && flag.status == 0)
        #expect(help.output == flag.output)
        #expect(help.output.hasPrefix("usage: apn \(path.joined(separator: " "))"), "\(help.output.prefix(80))")
        let unknown = try Self.apn(["help", "nope"])
        #expect(unknown.status == 2 && unknown.error.contains("\"nope\""))
    }

    @Test("options before or after the subcommand: apn tokens --store S list, apn --store S tokens show")
    func optionsBeforeTheSubcommand() throws {
        let folder = try ApnTokensTests.Folder()
        let registered = try Self.apn(["tokens", "--store", folder.store, "register", "aabb", "--at", "1700000000"])
        #expect(registered.status == 0, "\(registered.error)")
        let listed = try Self.apn(["tokens", "--store=\(folder.store)", "list"])
        #expect(listed.status == 0, "\(listed.error)")
        #expect(listed.output.contains(#""token":"aabb""#))
        let shown = try Self.apn(["--store", folder.store, "tokens", "show", "aabb"])
        #expect(shown.status == 0 && shown.output == listed.output, "\(shown.error)")
        let missing = try Self.apn(["tokens", "--store", folder.store])
        #expect(missing.status == 2 && missing.error.contains("missing subcommand"), "\(missing.error)")
    }

    @Test("every declared flag is in its command's --help, and every flag --help shows parses")
    func declaredFlagsAreDocumentedAndParse() throws {
        let declared = try Self.declared()
        #expect(declared["send"]?.contains("--passphrase-file") == true, "\(declared.keys.sorted())")
        #expect(declared.count >= 20, "\(declared.keys.sorted())")
        let flagLine = try Regex(#"^  (--[a-z0-9-]+)(?: ([^ -][^ ]*))?"#)
        for (path, words) in declared.sorted(by: { $0.key < $1.key }) where !path.isEmpty {
            let command = path.split(separator: " ").map(String.init)
            let help = try Self.apn(command + ["--help"])
            #expect(help.status == 0, "\(path): \(help.error)")
            for flag in words where flag.hasPrefix("--") && flag != "--help" {
                let whole = try Regex(NSRegularExpression.escapedPattern(for: flag) + "(?![a-z0-9-])")
                #expect(help.output.contains(whole), "\(path): \(flag) is declared but not in --help")
            }
            // Each flag as the usage shows it, with a value where it shows one: the parser
            // takes them all (an unknown one would exit 2 before --help is seen).
            var arguments: [String] = []
            for line in help.output.split(separator: "\n") {
                guard let match = try flagLine.prefixMatch(in: String(line)) else { continue }
                arguments.append(String(match.output[1].substring ?? ""))
                if match.output[2].substring != nil { arguments.append("1") }
            }
            #expect(!arguments.isEmpty || words.allSatisfy { !$0.hasPrefix("--") || $0 == "--help" }, "\(path): no flag lines")
            let parsed = try Self.apn(command + arguments + ["--help"])
            #expect(parsed.status == 0, "\(path): \(arguments) \(parsed.error)")
        }
    }

    @Test("apn completion bash completes subcommands, flags and a flag's choices, in bash itself")
    func bashCompletion() throws {
        let script = try Self.apn(["completion", "bash"])
        #expect(script.status == 0)
        let folder = try ApnTokensTests.Folder()
        let file = try folder.file("apn.bash", script.output + "\n")
        func complete(_ words: [String]) throws -> [String] {
            let quoted = words.map { "'\($0)'" }.joined(separator: " ")
            let bash = try ApnProcess(
                ["-c", "source '\(file)'; COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1); _apn; echo \"${COMPREPLY[*]}\""],
                executable: "/bin/bash")
            let (status, error) = try bash.waitForExit()
            #expect(status == 0, "\(error)")
            return try bash.remainingLines().joined().split(separator: " ").map(String.init)
        }
        #expect(try complete(["apn", "fee"]) == ["feedback", "feedback-service"])
        #expect(try complete(["apn", "tokens", "--store", "s.sqlite", "pr"]) == ["prune"])
        #expect(try complete(["apn", "send", "--passph"]) == ["--passphrase", "--passphrase-file"])
        #expect(try complete(["apn", "send", "--format", ""]) == ["simple", "enhanced", "frame"])
        #expect(try complete(["apn", "send", "--tokens-file", ""]) == [], "a file name: bash's default")
        #expect(try complete(["apn", "tokens", "prune", "--inact"]) == ["--inactive-before"])
    }

    @Test("apn completion zsh is a #compdef script with each command's flags and choices")
    func zshCompletion() throws {
        let script = try Self.apn(["completion", "zsh"])
        #expect(script.status == 0)
        #expect(script.output.hasPrefix("#compdef apn\n"))
        #expect(script.output.contains("('send:--format') compadd -- simple enhanced frame; return ;;"))
        #expect(script.output.contains("('tokens:prune') cmdpath='tokens prune' ;;"))
        #expect(script.output.contains("'--inactive-before:UNIX seconds or ISO-8601"))
        #expect(try Self.apn(["completion", "fish"]).status == 2)
    }

    /// Item 10: a reader that stops early is not an error, and not a message.
    @Test("apn tokens list | head -2 and apn send --all | head -2 exit 0 and say nothing")
    func closedPipe() throws {
        let folder = try ApnTokensTests.Folder()
        let tokens = (1...20_000).map { String(format: "%064x", $0) }.joined(separator: "\n")
        #expect(try ApnTokensTests.tokens(["import", try folder.file("t.txt", tokens)], store: folder.store).status == 0)
        let apn = try ApnProcess.executable().path
        func pipeline(_ command: String) throws -> (lines: [String], error: String) {
            let bash = try ApnProcess(["-c", "\(command) | head -2; echo \"status ${PIPESTATUS[0]}\""], executable: "/bin/bash")
            let (status, error) = try bash.waitForExit(timeout: 120)
            #expect(status == 0)
            return (try bash.remainingLines(), error)
        }
        let listed = try pipeline("'\(apn)' tokens list --store '\(folder.store)'")
        #expect(listed.lines.count == 3 && listed.lines.last == "status 0", "\(listed.lines)")
        #expect(listed.error.isEmpty, "\(listed.error)")

        let fixture = try SendFixture()
        let file = try fixture.file("tokens.txt", (1...3_000).map { String(format: "%064x", $0) }.joined(separator: "\n"))
        let sent = try pipeline(
            "'\(apn)' send --certs '\(fixture.certs)' --address \(fixture.address) --tokens-file '\(file)' --alert Hi --all")
        #expect(sent.lines.count == 3 && sent.lines.last == "status 0", "\(sent.lines)")
        #expect(sent.error.isEmpty, "\(sent.error)")
        #expect(try fixture.stop()["accepted"] as? Int == 3_000)
    }
}
