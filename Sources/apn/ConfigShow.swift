import APN
import APNFeedbackStore

/// `--check-config`'s line (#42), for any command with a configuration file: every flag of
/// the command given (typed or from the file) or with a declared default, as the members of
/// a configuration file, so what is printed, saved, starts the same command. A value the
/// file took from the environment or a file is shown by that source; a store URL and a
/// proxy URL without their passwords; a passphrase or password typed as `***`. The line can go into a ticket.
enum ConfigShow {
    /// The members for `groups`' flags but `skipping`, from `flags` (the file's merged in)
    /// and `file`.
    static func members(
        _ groups: [FlagGroup], flags: Flags, file: ConfigFile?, skipping: Set<String> = []
    ) -> [(String, JSONValue)] {
        let skipped = skipping.union(["--config", "--check-config"])
        return groups.flatMap(\.flags).filter { !skipped.contains($0.name) }.compactMap { flag in
            value(flag, flags: flags, file: file).map { (ConfigFile.key(flag.name), $0) }
        }
    }

    private static func value(_ flag: Flag, flags: Flags, file: ConfigFile?) -> JSONValue? {
        guard flag.value != nil else { return .bool(flags.has(flag.name)) }
        if flag.repeatable { return flags.all(flag.name).isEmpty ? nil : .array(flags.all(flag.name).map(JSONValue.string)) }
        switch file?.sources[flag.name] {
        case .environment(let name)?: return .object([("env", .string(name))])
        case .file(let path)?: return .object([("file", .string(path))])
        case nil: break
        }
        guard var text = flags.value(flag.name) ?? flag.defaultValue else { return nil }
        if flag.name == "--store" { text = TokenStore.redacted(text) }
        if flag.name == "--proxy" { text = HTTPProxy.redactingPassword(in: text) }
        if isSecret(flag.name) { return .string("***") }
        let numeric = flag.value == "N" || flag.value == "SECONDS" || flag.value == "BYTES"
        if numeric, let number = Int(text) { return .integer(number) }
        return .string(text)
    }

    /// Flags whose value is a secret itself (not a path to one).
    static func isSecret(_ name: String) -> Bool {
        (name.contains("passphrase") || name.contains("password")) && !name.hasSuffix("-file")
    }
}
