import Foundation
import Testing
import APNTestSupport
import APNTestTraits

/// The router's and parser's edges found in review of #27: `--version` after a subcommand,
/// `--` before one, a single-valued flag given twice, a name both valued and a switch.
@Suite("apn router edges", .threadPerTest, .ownsChildProcesses)
struct ApnRouterEdgesTests {
    static func apn(_ arguments: [String]) throws -> (status: Int32, output: String, error: String) {
        try ApnConventionsTests.apn(arguments)
    }

    @Test("--version anywhere prints the version and exits 0", arguments: [
        ["--version", "send"], ["send", "--version"], ["tokens", "--version"], ["tokens", "list", "--version"],
        ["--store", "s.sqlite", "--version", "tokens", "list"], ["send", "--token", "aa", "--version"],
    ])
    func versionAnywhere(arguments: [String]) throws {
        let version = try Self.apn(["--version"])
        #expect(version.status == 0 && version.output.hasPrefix("apn "), "\(version.error)")
        let anywhere = try Self.apn(arguments)
        #expect(anywhere.status == 0, "\(anywhere.error)")
        #expect(anywhere.output == version.output)
    }

    @Test("--version as a flag's value is that value, not the flag")
    func versionAsAValue() throws {
        let sent = try Self.apn(["send", "--alert", "--version", "--token", String(repeating: "ab", count: 32)])
        #expect(sent.status == 2, "\(sent.output)")
        #expect(sent.error.contains("no credentials"), "\(sent.error)")
        #expect(sent.output.isEmpty)
    }

    @Test("after --, the first argument names the subcommand; `apn --` alone still wants one")
    func doubleDash() throws {
        let folder = try ApnTokensTests.Folder()
        let registered = try Self.apn(["tokens", "register", "aabb", "--store", folder.store, "--at", "1700000000"])
        #expect(registered.status == 0, "\(registered.error)")
        let listed = try Self.apn(["--store", folder.store, "--", "tokens", "list"])
        #expect(listed.status == 0, "\(listed.error)")
        #expect(listed.output.contains(#""token":"aabb""#), "\(listed.output)")
        let nested = try Self.apn(["tokens", "--store", folder.store, "--", "list"])
        #expect(nested.status == 0 && nested.output == listed.output, "\(nested.error)")
        let alone = try Self.apn(["--"])
        #expect(alone.status == 2 && alone.error.contains("missing subcommand"), "\(alone.error)")
        let unknown = try Self.apn(["--", "--store"])
        #expect(unknown.status == 2 && unknown.error.contains("unknown subcommand \"--store\""), "\(unknown.error)")
    }

    @Test("a single-valued flag given twice is refused, naming it", arguments: [
        ["tokens", "list", "--store", "a.sqlite", "--store", "b.sqlite"],
        ["--store=a.sqlite", "tokens", "list", "--store", "b.sqlite"],
        ["send", "--passphrase-file", "a", "--passphrase-file", "b", "--alert", "x"],
    ])
    func repeatRefused(arguments: [String]) throws {
        let flag = arguments.first { $0.hasPrefix("--") }!.split(separator: "=")[0]
        let result = try Self.apn(arguments)
        #expect(result.status == 2, "\(result.output)")
        #expect(result.error.contains("\(flag) given twice"), "\(result.error)")
    }

    /// One flag as a command's `--help` shows it: whether it takes a value, and its help text
    /// (continuation lines included).
    struct ShownFlag {
        let name: String
        let takesValue: Bool
        var help: String
    }

    /// The flags `apn PATH --help` shows.
    static func shownFlags(_ path: [String]) throws -> [ShownFlag] {
        let help = try apn(path + ["--help"])
        #expect(help.status == 0, "\(path): \(help.error)")
        let flagLine = try Regex(#"^  (--[a-z0-9-]+)( [^ -][^ ]*)?(?: +(.*))?$"#)
        let continuation = String(repeating: " ", count: 30)
        var flags: [ShownFlag] = []
        for line in help.output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if let match = try flagLine.wholeMatch(in: line) {
                flags.append(ShownFlag(
                    name: String(match.output[1].substring ?? ""), takesValue: match.output[2].substring != nil,
                    help: String(match.output[3].substring ?? "")))
            } else if line.hasPrefix(continuation), !flags.isEmpty {
                flags[flags.count - 1].help += " " + line.trimmingCharacters(in: .whitespaces)
            }
        }
        return flags
    }

    @Test("a flag whose help says repeatable takes a repeat; every other valued flag refuses one")
    func repeatableAsDeclared() throws {
        var checked = 0
        let paths = try ApnConventionsTests.declared().keys
        // A group's own --help answers before its flags are parsed: its flags are checked
        // under its subcommands, which take them too.
        let leaves = paths.filter { path in !path.isEmpty && !paths.contains { $0.hasPrefix(path + " ") } }
        for path in leaves.sorted() {
            let command = path.split(separator: " ").map(String.init)
            for flag in try Self.shownFlags(command) where flag.takesValue {
                let twice = try Self.apn(command + [flag.name, "1", flag.name, "1", "--help"])
                if flag.help.contains("repeatable") {
                    #expect(twice.status == 0, "\(path) \(flag.name): \(twice.error)")
                } else {
                    #expect(twice.status == 2 && twice.error.contains("\(flag.name) given twice"),
                            "\(path) \(flag.name): \(twice.status) \(twice.error)")
                }
                checked += 1
            }
        }
        #expect(checked >= 50, "valued flags checked: \(checked)")
    }

    @Test("no flag name is valued in one command and a switch in another (the router's pre-scan relies on it)")
    func valuedOrSwitchEverywhere() throws {
        var kinds: [String: [String: Bool]] = [:]
        for path in try ApnConventionsTests.declared().keys.sorted() {
            let command = path.split(separator: " ").map(String.init)
            for flag in try Self.shownFlags(command) {
                kinds[flag.name, default: [:]][path.isEmpty ? "apn" : path] = flag.takesValue
            }
        }
        #expect(kinds["--store"]?.values.allSatisfy { $0 } == true, "\(kinds["--store"] ?? [:])")
        #expect(kinds["--force"]?.values.allSatisfy { !$0 } == true, "\(kinds["--force"] ?? [:])")
        for (name, byCommand) in kinds.sorted(by: { $0.key < $1.key }) {
            #expect(Set(byCommand.values).count == 1, "\(name): valued in \(byCommand.filter(\.value).keys.sorted()), a switch in \(byCommand.filter { !$0.value }.keys.sorted())")
        }
    }
}
