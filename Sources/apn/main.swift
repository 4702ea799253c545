import Foundation

// `apn SUBCOMMAND …`: the command-line tools of swift-apn (ApnCommand lists them).

// A closed standard output (`apn … | head`) is an EPIPE for LineWriter, not a kill.
signal(SIGPIPE, SIG_IGN)
exit(CommandRouter.run(Array(CommandLine.arguments.dropFirst()), root: ApnCommand.self))
