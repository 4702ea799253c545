/// `apn` itself: the list of its commands, `--version` and `--help`.
enum ApnCommand: Subcommand {
    static let name = "apn"
    static let summary = "the command-line tools of swift-apn"
    static let synopsis = "<subcommand> [options]"
    static var subcommands: [any Subcommand.Type] {
        [
        DemoCommand.self, SendCommand.self, CertsCommand.self, MockGatewayCommand.self, FeedbackCommand.self,
        BridgeCommand.self, FeedbackServiceCommand.self, TokensCommand.self, ChannelsCommand.self, HelpCommand.self,
        CompletionCommand.self,
        ]
    }
    static let flagGroups = [FlagGroup([CommonFlags.version, CommonFlags.help])]
    static let epilogue: String? = """
        Options may come before or after the subcommand, --help and --version too; after `--`
        nothing is an option (the subcommand's name may still follow it). Run
        `apn help <subcommand>` (or `apn <subcommand> --help`) for its options.
        """
}

/// swift-apn's version, the one place it is written: `apn --version` prints it.
enum Version {
    static let current = "0.1.0-dev"
    /// What `--version` prints: `apn 0.1.0-dev`.
    static let line = "apn \(current)"
}

/// `apn help [SUBCOMMAND ...]`: the usage of `apn`, or of the command named.
enum HelpCommand: Subcommand {
    static let name = "help"
    static let arguments = "[SUBCOMMAND]"
    static let summary = "print the usage of apn or of a subcommand (as SUBCOMMAND --help does)"
    static let synopsis = "[SUBCOMMAND [SUBCOMMAND]]"

    static func run(_ flags: Flags) throws -> Int32 {
        guard let command = CommandRouter.resolve(flags.positional, from: ApnCommand.self) else {
            throw UsageError("no subcommand \"\(flags.positional.joined(separator: " "))\"; `apn --help` lists them")
        }
        LineWriter.stdoutText(command.usage(path: flags.positional))
        return 0
    }
}
