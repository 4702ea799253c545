import APN
import APNBridge
import APNFeedbackStore
import Foundation

/// `apn bridge …`: runs a ``Bridge`` until SIGINT or SIGTERM.
enum BridgeCommand: Subcommand {
    static let name = "bridge"
    static let summary = "a binary gateway and feedback service in front of Apple's HTTP/2 API"
    static let about = BridgeFlags.about
    static let flagGroups = BridgeFlags.groups
    static let epilogue = BridgeFlags.epilogue

    static func run(_ flags: Flags) throws -> Int32 {
        var options = try BridgeFlags.parse(flags)
        options.configuration.log = { event in LineWriter.stderr(BridgeLog.line(event).text) }

        // Signals first, so one that arrives while starting is not fatal.
        let stopSignals = StopSignals()
        let bridge = try Bridge(configuration: options.configuration)
        try bridge.start()
        let configuration = options.configuration
        let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        LineWriter.stdout(
            .object([
                ("gateway", .string("\(host):\(bridge.gatewayPort)")),
                ("feedback", .string("\(host):\(bridge.feedbackPort)")),
            ]))
        let upstream = configuration.upstream
        LineWriter.stderr(
            BridgeLog.started(
                upstream: "\(upstream.host):\(upstream.port)", tenants: configuration.tenants.all.map(\.name),
                store: configuration.storePath.map(TokenStore.redacted)
            ).text)

        stopSignals.wait()
        LineWriter.stderr(BridgeLog.stopping(grace: options.grace).text)
        let summary = bridge.stop(grace: options.grace)
        LineWriter.stdout(BridgeLog.summary(summary))
        return 0
    }
}
