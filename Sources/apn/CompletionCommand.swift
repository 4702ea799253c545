import Foundation

/// `apn completion bash|zsh`: a shell completion script made from the commands' flag
/// declarations, so it offers what the parser takes.
enum CompletionCommand: Subcommand {
    static let name = "completion"
    static let arguments = "bash|zsh"
    static let summary = "print a shell completion script (bash or zsh) for apn"
    static let synopsis = "bash|zsh"
    static let about: String? = """
          bash: source <(apn completion bash)        (or save it in ~/.local/share/bash-completion/completions/apn)
          zsh:  apn completion zsh > "${fpath[1]}/_apn"   (then compinit)
        """

    static func run(_ flags: Flags) throws -> Int32 {
        let shells = ["bash": CompletionScript.bash, "zsh": CompletionScript.zsh]
        guard flags.positional.count == 1, let script = shells[flags.positional[0]] else {
            throw UsageError("completion takes one shell: bash or zsh")
        }
        LineWriter.stdoutText(script(CompletionScript.commands(ApnCommand.self)))
        return 0
    }
}

/// The scripts `apn completion` prints: for each command path, its subcommands and flags;
/// after a flag that takes a value, that value's choices or file names.
enum CompletionScript {
    /// One command as the scripts see it.
    struct Command {
        /// The words between `apn` and the flags: `tokens list`; empty for `apn`.
        let path: String
        let subcommands: [(name: String, summary: String)]
        let flags: [Flag]
    }

    /// `root` and every command under it.
    static func commands(_ root: any Subcommand.Type, path: [String] = []) -> [Command] {
        let declared = root.flagGroups.flatMap(\.flags)
        let flags = declared + (declared.contains { $0.name == "--help" } ? [] : [CommonFlags.help])
        let here = Command(
            path: path.joined(separator: " "), subcommands: root.subcommands.map { ($0.name, $0.summary) }, flags: flags)
        return [here] + root.subcommands.flatMap { commands($0, path: path + [$0.name]) }
    }

    /// Every step from one command to a subcommand: `(from path, word, to path)`.
    static func steps(_ commands: [Command]) -> [(from: String, word: String, to: String)] {
        commands.flatMap { command in
            command.subcommands.map { child in
                (command.path, child.name, command.path.isEmpty ? child.name : "\(command.path) \(child.name)")
            }
        }
    }

    /// Every flag that takes a value, with its command's path.
    static func valuedFlags(_ commands: [Command]) -> [(path: String, flag: Flag)] {
        commands.flatMap { command in command.flags.filter { $0.value != nil }.map { (command.path, $0) } }
    }

    /// What `apn completion bash` prints.
    static func bash(_ commands: [Command]) -> String {
        var lines = [
            "# bash completion for apn, made by `apn completion bash` from apn's flag declarations.",
            "_apn() {",
            "    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} cmdpath='' word i words",
            "    for ((i = 1; i < COMP_CWORD; i++)); do",
            "        word=${COMP_WORDS[i]}",
            "        case \"$cmdpath:$word\" in",
        ]
        lines += steps(commands).map { "            '\($0.from):\($0.word)') cmdpath='\($0.to)' ;;" }
        lines += ["        esac", "    done", "    case \"$cmdpath:$prev\" in"]
        lines += valuedFlags(commands).map { path, flag in
            let choices = flag.choices.joined(separator: " ")
            let action = choices.isEmpty ? "COMPREPLY=(); return 0" : "COMPREPLY=($(compgen -W '\(choices)' -- \"$cur\")); return 0"
            return "        '\(path):\(flag.name)') \(action) ;;"
        }
        lines += ["    esac", "    case \"$cmdpath\" in"]
        lines += commands.map { command in
            "        '\(command.path)') words='\((command.subcommands.map(\.name) + command.flags.map(\.name)).joined(separator: " "))' ;;"
        }
        lines += [
            "    esac",
            "    COMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))",
            "}",
            // -o default: after a flag taking a file, bash completes file names.
            "complete -o default -F _apn apn",
        ]
        return lines.joined(separator: "\n")
    }

    /// What `apn completion zsh` prints.
    static func zsh(_ commands: [Command]) -> String {
        var lines = [
            "#compdef apn",
            "# zsh completion for apn, made by `apn completion zsh` from apn's flag declarations.",
            "_apn() {",
            "  local cmdpath='' word i",
            "  local -a candidates",
            "  for (( i = 2; i < CURRENT; i++ )); do",
            "    word=${words[i]}",
            "    case \"$cmdpath:$word\" in",
        ]
        lines += steps(commands).map { "      ('\($0.from):\($0.word)') cmdpath='\($0.to)' ;;" }
        lines += ["    esac", "  done", "  case \"$cmdpath:${words[CURRENT-1]}\" in"]
        lines += valuedFlags(commands).map { path, flag in
            let choices = flag.choices.joined(separator: " ")
            return "    ('\(path):\(flag.name)') \(choices.isEmpty ? "_files" : "compadd -- \(choices)"); return ;;"
        }
        lines += ["  esac", "  case \"$cmdpath\" in"]
        lines += commands.map { command in
            let entries = command.subcommands.map { quoted("\($0.name):\($0.summary)") }
                + command.flags.map { quoted("\($0.name):\(firstClause($0.help))") }
            return "    ('\(command.path)') candidates=(\(entries.joined(separator: " "))) ;;"
        }
        lines += [
            "  esac",
            "  _describe -t commands 'apn' candidates",
            "}",
            "if [[ \"${funcstack[1]}\" == _apn ]]; then _apn \"$@\"; else compdef _apn apn; fi",
        ]
        return lines.joined(separator: "\n")
    }

    /// A help text's start, short enough for a completion menu.
    private static func firstClause(_ help: String) -> String {
        let clause = help.prefix { $0 != ";" && $0 != "(" }.trimmingCharacters(in: .whitespaces)
        return clause.count <= 70 ? clause : String(clause.prefix(67)) + "..."
    }

    /// `text` in single quotes for a shell (a quote inside closed, escaped and reopened).
    private static func quoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
