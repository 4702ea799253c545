import APNMockGateway
import Foundation

extension MockGatewayCommand {
    /// The flags a reload cannot apply: the listeners, their TLS and limits, the
    /// certificates, the record file, the feedback queued at start, the HTTP/2 mock's
    /// environment, keys and stream limit. Every other flag is a fault, applied at once.
    static let restartFlags: Set<String> = [
        "--host", "--port", "--feedback-port", "--certs", "--record", "--max-connections", "--idle-timeout",
        "--tls-min", "--no-session-tickets", "--no-client-cert", "--feedback", "--feedback-file",
        "--feedback-write-size", "--feedback-pause-ms", "--http2", "--http2-port", "--http2-environment",
        "--http2-max-streams", "--provider-key", "--team-topics", "--admin",
    ]

    /// At SIGHUP (#42: every long-running command reloads): the command line and its
    /// `--config` read again; both gateways' faults replaced by the new ones — what the
    /// next notifications and requests meet; any other flag that changed is named in
    /// `needs_restart` and left as it is. One line on standard error: `reloaded`, or
    /// `reload_refused` with the reason, the faults in force kept.
    static func reload(_ typed: Flags, started: Flags, gateways: Gateways) {
        let options: Options
        let now: Flags
        do {
            options = try parse(typed)
            (now, _) = try Flags.withConfigFile(typed, groups: flagGroups)
        } catch {
            return LineWriter.stderr(reloadLine("reload_refused", [("reason", .string(ErrorText.of(error)))]).text)
        }
        gateways.binary.setFaults(options.configuration.faults)
        if let http2 = gateways.http2, let faults = options.http2?.faults { http2.setFaults(faults) }
        let changed = flagGroups.flatMap(\.flags).filter { flag in
            restartFlags.contains(flag.name) && given(flag, started) != given(flag, now)
        }
        LineWriter.stderr(
            reloadLine("reloaded", [("needs_restart", .array(changed.map { .string(ConfigFile.key($0.name)) }))]).text)
    }

    /// What `flags` say of `flag`: its values, its value, or whether a switch is on.
    private static func given(_ flag: Flag, _ flags: Flags) -> [String] {
        guard flag.value != nil else { return flags.has(flag.name) ? ["on"] : [] }
        return flag.repeatable ? flags.all(flag.name) : flags.value(flag.name).map { [$0] } ?? []
    }

    private static func reloadLine(_ event: String, _ rest: [(String, JSONValue)]) -> JSONValue {
        .object([("time", .string(BridgeLog.timestamp())), ("event", .string(event))] + rest)
    }
}
