import APN
import APNBridge

/// `--log-level`: what the library itself says on standard error (its `StandardErrorLogHandler`).
enum LogFlags {
    static let group = FlagGroup(
        "Logging:",
        [
            .valued(
                "--log-level", "trace|debug|info|notice|warning|error|critical",
                "what the library logs on standard error (debug: sockets opened and closed; info: feedback "
                    + "entries, GOAWAYs, provider tokens signed); never a key, passphrase or token",
                default: "warning")
        ])

    /// The handler `--log-level` asks for.
    static func handler(_ flags: Flags) throws(UsageError) -> StandardErrorLogHandler {
        guard let text = flags.value("--log-level") else { return StandardErrorLogHandler() }
        guard let level = APNLogLevel(rawValue: text) else {
            throw UsageError(
                "--log-level must be one of \(APNLogLevel.allCases.map(\.rawValue).joined(separator: ", ")), not \"\(text)\"")
        }
        return StandardErrorLogHandler(level: level)
    }
}

/// `apn bridge`'s log handler: `--log-level`'s, without the bridge's own event lines, which
/// `apn bridge` already writes as JSON lines (``BridgeLog``); its tenants' providers and
/// everything else still log as asked.
struct BridgeLogHandler: APNLogHandler {
    let base: StandardErrorLogHandler

    var logLevel: APNLogLevel { base.logLevel }

    func log(
        level: APNLogLevel, message: String, metadata: APNLogMetadata, label: String, file: String, function: String,
        line: UInt
    ) {
        guard label != Bridge.logLabel else { return }
        base.log(level: level, message: message, metadata: metadata, label: label, file: file, function: function, line: line)
    }
}
