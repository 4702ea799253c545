import APNTLS
import Foundation

// `apn SUBCOMMAND …`: the command-line tools of swift-apn.

let topUsage = """
    usage: apn <subcommand> [options]
      demo               run the whole story on an embedded mock gateway and check every outcome
      send               send notifications to the gateway (or `apn mock-gateway`)
      certs DIR          write a CA, a server and a push client certificate into DIR
      mock-gateway       run a mock binary gateway and feedback server until SIGINT/SIGTERM
      feedback           read the feedback service once or every interval, one JSON line per entry
      bridge             a binary gateway and feedback service in front of Apple's HTTP/2 API
      feedback-service   poll the feedback service and apply it to a token store (SQLite)
      tokens             register, unregister, import, list and show the tokens of that store
    Run `apn <subcommand> --help` for its options.
    """

func runMain() -> Int32 {
    let arguments = Array(CommandLine.arguments.dropFirst())
    guard let subcommand = arguments.first else {
        LineWriter.stderr("apn: missing subcommand\n\(topUsage)")
        return 2
    }
    let rest = Array(arguments.dropFirst())
    do {
        switch subcommand {
        case "demo": return try DemoCommand.run(rest)
        case "send": return try SendCommand.run(rest)
        case "certs": return try CertsCommand.run(rest)
        case "mock-gateway": return try MockGatewayCommand.run(rest)
        case "bridge": return try BridgeCommand.run(rest)
        case "feedback": return try FeedbackCommand.run(rest)
        case "feedback-service": return try FeedbackServiceCommand.run(rest)
        case "tokens": return try TokensCommand.run(rest)
        case "--help", "-h", "help":
            print(topUsage)
            return 0
        default:
            LineWriter.stderr("apn: unknown subcommand \"\(subcommand)\"\n\(topUsage)")
            return 2
        }
    } catch let error as UsageError {
        LineWriter.stderr("apn \(subcommand): \(error.message)\nRun `apn \(subcommand) --help` for usage.")
        return 2
    } catch {
        LineWriter.stderr("apn \(subcommand): \(error)")
        return 1
    }
}

exit(runMain())
