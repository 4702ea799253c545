import APNBridge
import Foundation

/// What `apn bridge` does at SIGHUP (#42 item 3): reads the command line and its
/// configuration file again (every certificate and key with them), and hands the result to
/// ``Bridge/reload(_:)``. One log line says what happened: `reloaded` with the tenants
/// added, reloaded and removed and the settings that need a restart, or `reload_refused`
/// with the reason — and then the configuration in effect stays as it was.
enum BridgeReloader {
    /// Reloads `bridge` from `flags` (the command line as typed); `running` is what it
    /// started with. The configuration now in effect and the grace for the stop, or nil
    /// when refused.
    static func reload(
        _ bridge: Bridge, flags: Flags, running: BridgeFlags.Options
    ) -> (Bridge.Configuration, Duration)? {
        let options: BridgeFlags.Options
        let reload: Bridge.Reload
        do {
            options = try BridgeFlags.parse(flags)
            reload = try bridge.reload(options.configuration)
        } catch let error as UsageError {
            LineWriter.stderr(refused(error.message).text)
            return nil
        } catch {
            LineWriter.stderr(refused(ErrorText.of(error)).text)
            return nil
        }
        var restart = reload.needsRestart
        if options.admin.map({ "\($0.host):\($0.port)" }) != running.admin.map({ "\($0.host):\($0.port)" }) {
            restart.append("admin")
        }
        LineWriter.stderr(
            JSONValue.object([
                ("time", .string(BridgeLog.timestamp())), ("event", .string("reloaded")),
                ("added", .array(reload.added.map(JSONValue.string))),
                ("reloaded", .array(reload.reloaded.map(JSONValue.string))),
                ("removed", .array(reload.removed.map(JSONValue.string))),
                ("needs_restart", .array(restart.map(JSONValue.string))),
            ]).text)
        return (bridge.configuration, options.grace)
    }

    private static func refused(_ reason: String) -> JSONValue {
        .object([
            ("time", .string(BridgeLog.timestamp())), ("event", .string("reload_refused")),
            ("reason", .string(reason)),
        ])
    }
}
