/// A command of `apn`: its name, its flags (declared once, ``FlagGroup``), the text of its
/// `--help` around them, and what it does. A command with ``subcommands`` (`apn`,
/// `apn tokens`) only routes to them; ``CommandRouter`` finds which one runs.
protocol Subcommand {
    /// What is typed to run it: `send`.
    static var name: String { get }
    /// What it takes after its name in its parent's list: `DIR`, `TOKEN [--at TIME]`.
    static var arguments: String { get }
    /// One line for its parent's list.
    static var summary: String { get }
    /// What follows `usage: apn PATH` in its `--help`: `[options] (--token HEX ... | --tokens-file FILE)`.
    static var synopsis: String { get }
    /// Lines between the usage line and the flags.
    static var about: String? { get }
    /// Its flags, in the order `--help` shows them.
    static var flagGroups: [FlagGroup] { get }
    /// Lines after the flags.
    static var epilogue: String? { get }
    /// The commands it routes to; empty for one that runs.
    static var subcommands: [any Subcommand.Type] { get }
    /// Runs it with its parsed flags; the exit status.
    static func run(_ flags: Flags) throws -> Int32
    /// Whether it reloads its configuration at SIGHUP (``HangupSignals``); any other is
    /// ended by SIGHUP, the signal's default.
    static var reloadsOnHangup: Bool { get }
}

extension Subcommand {
    static var arguments: String { "" }
    static var synopsis: String { "[options]" }
    static var about: String? { nil }
    static var flagGroups: [FlagGroup] { [] }
    static var epilogue: String? { nil }
    static var subcommands: [any Subcommand.Type] { [] }
    static var reloadsOnHangup: Bool { false }

    /// A command with subcommands runs only through one of them.
    static func run(_ flags: Flags) throws -> Int32 {
        throw UsageError("missing subcommand (\(subcommands.map { $0.name }.joined(separator: ", ")))")
    }

    /// Its `--help`; `path` is what comes between `apn` and its flags (`["tokens", "list"]`).
    static func usage(path: [String]) -> String {
        var parts = ["usage: " + (["apn"] + path).joined(separator: " ") + (synopsis.isEmpty ? "" : " " + synopsis)]
        if let about { parts.append(about) }
        if !subcommands.isEmpty {
            let entries = subcommands.flatMap { child in
                UsageText.entry(child.name + (child.arguments.isEmpty ? "" : " " + child.arguments), child.summary)
            }
            parts.append(entries.joined(separator: "\n"))
        }
        if !flagGroups.isEmpty { parts.append(UsageText.render(flagGroups)) }
        if let epilogue { parts.append(epilogue) }
        return parts.joined(separator: "\n")
    }

    /// Every flag it and the commands under it take that needs a value: what the router
    /// skips, with its value, while looking for a subcommand's name.
    static var valuedFlagsBelow: Set<String> {
        Set(flagGroups.flatMap(\.flags).filter { $0.value != nil }.map(\.name))
            .union(subcommands.flatMap { $0.valuedFlagsBelow })
    }
}
