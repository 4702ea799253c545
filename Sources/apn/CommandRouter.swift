import Glibc

/// Finds the command an `apn` command line names and runs it: the first argument that is
/// not a flag (nor a flag's value) names a subcommand, wherever it stands, so options may
/// come before or after it (`apn tokens --store S list`); the flags then go to that command.
/// After `--` every argument is positional, so the first one after it, if no name came
/// before, names the subcommand (`apn -- tokens list`). `--help` and `--version` are
/// answered wherever they stand (`apn send --version`), the usage first.
enum CommandRouter {
    /// Runs `arguments` (without the program name) under `root`; the exit status.
    static func run(_ arguments: [String], root: any Subcommand.Type) -> Int32 {
        var command = root
        var path: [String] = []
        var rest = arguments
        do {
            while !command.subcommands.isEmpty, let index = subcommandIndex(rest, valued: command.valuedFlagsBelow) {
                let name = rest[index]
                guard let child = command.subcommands.first(where: { $0.name == name }) else {
                    LineWriter.stderr(
                        "\(prefix(path)): unknown subcommand \"\(name)\"\n\(command.usage(path: path))")
                    return 2
                }
                rest.remove(at: index)
                command = child
                path.append(name)
            }
            if !command.subcommands.isEmpty {
                let options = rest.prefix { $0 != "--" }
                if options.contains("--help") || options.contains("-h") {
                    LineWriter.stdoutText(command.usage(path: path))
                    return 0
                }
                if rest.isEmpty {
                    LineWriter.stderr("\(prefix(path)): missing subcommand\n\(command.usage(path: path))")
                    return 2
                }
                // A group takes no flags of its own but those it declares (`apn --version`):
                // an unknown one is named (`apn --versio`), anything else wants a subcommand.
                let flags: Flags
                do throws(UsageError) {
                    flags = try Flags(rest, groups: command.flagGroups)
                } catch where error.message.hasPrefix("unknown option") && !rest.contains(where: { !$0.hasPrefix("-") }) {
                    throw error
                } catch {
                    throw UsageError("missing subcommand (\(command.subcommands.map { $0.name }.joined(separator: ", ")))")
                }
                if flags.wantsVersion { return printVersion() }
                return try command.run(flags)
            }
            let flags = try Flags(rest, groups: command.flagGroups)
            if flags.wantsHelp {
                LineWriter.stdoutText(command.usage(path: path))
                return 0
            }
            if flags.wantsVersion { return printVersion() }
            if !command.reloadsOnHangup { restoreHangup() }
            return try command.run(flags)
        } catch let error as UsageError {
            let hint = path.isEmpty ? "Run `apn --help` for usage." : "Run `apn \(path.joined(separator: " ")) --help` for usage."
            LineWriter.stderr("\(prefix(path)): \(error.message)\n\(hint)")
            return 2
        } catch {
            LineWriter.stderr("\(prefix(path)): \(ErrorText.of(error))")
            return 1
        }
    }

    /// The command named by `path`, from `root`; nil (and the name not found) when one is unknown.
    static func resolve(_ path: [String], from root: any Subcommand.Type) -> (any Subcommand.Type)? {
        var command = root
        for name in path {
            guard let child = command.subcommands.first(where: { $0.name == name }) else { return nil }
            command = child
        }
        return command
    }

    /// SIGHUP unblocked in this thread, before the command starts any other: main.swift
    /// blocks it for the commands that reload on it, and any other ends at it, as a
    /// program whose terminal went away should.
    private static func restoreHangup() {
        var hangup = sigset_t()
        sigemptyset(&hangup)
        sigaddset(&hangup, SIGHUP)
        pthread_sigmask(SIG_UNBLOCK, &hangup, nil)
    }

    /// `apn --version`, wherever it stands.
    private static func printVersion() -> Int32 {
        LineWriter.stdoutText(Version.line)
        return 0
    }

    /// `apn tokens list`: how messages start.
    static func prefix(_ path: [String]) -> String {
        (["apn"] + path).joined(separator: " ")
    }

    /// Where the first argument that is neither a flag nor a flag's value is: after `--`,
    /// the argument following it, whatever it looks like.
    private static func subcommandIndex(_ arguments: [String], valued: Set<String>) -> Int? {
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--" { return index + 1 < arguments.count ? index + 1 : nil }
            guard argument.hasPrefix("-"), argument != "-" else { return index }
            index += !argument.contains("=") && valued.contains(argument) ? 2 : 1
        }
        return nil
    }
}
