import APNSupport
import APN
import Foundation

/// `apn send`'s `--connect-timeout` and `--retry-limit`, with defaults for a person at a
/// terminal rather than the library's (node-apn's: 10 retries with a backoff doubling to
/// 512 s, 17 minutes of silence before an unreachable gateway fails).
///
/// The defaults give an unreachable gateway up within 30 s: three attempts of at most 8 s
/// each and the backoff between them (1 s, then 2 s; at most 4 s with a larger
/// `--retry-limit`), so 27 s for an address that never answers, 3 s for a refused port.
/// Through `--http2` the provider's own backoff (0.25 s doubling) applies between attempts.
enum ConnectFlags {
    static let group = FlagGroup(
        "Connecting (each failed attempt is one line on standard error):",
        [
            .valued(
                "--connect-timeout", "SECONDS", "give up a connection attempt (TCP and TLS) after SECONDS (0.1 to 600)",
                default: "8"),
            .valued(
                "--retry-limit", "N",
                "failed connection attempts retried before giving up (0: none); the binary gateway waits 1 s, 2 s, "
                    + "4 s, 4 s … between them", default: "2"),
            .valued(
                "--write-stall-timeout", "SECONDS",
                "give a binary connection up as failed (a failed attempt) when the gateway takes or acknowledges no "
                    + "byte for SECONDS with bytes waiting: a gateway that stopped reading (1 to 3600)", default: "10"),
        ],
        notes: """
              e.g. apn send: connecting to 127.0.0.1:2195 failed: connection refused (errno 111); next try in 1 s
              (the last: "...; giving up")
            """)

    /// The connect timeout without `--connect-timeout`.
    static let defaultConnectTimeout: Duration = .seconds(8)
    /// The retries without `--retry-limit`.
    static let defaultRetryLimit = 2
    /// The write stall timeout without `--write-stall-timeout`: shorter than the library's
    /// 30 s, so a gateway that stops reading on every connection fails a send within about
    /// 40 s with the default retries.
    static let defaultWriteStallTimeout: Duration = .seconds(10)
    /// The longest wait between attempts to the binary gateway.
    static let maxBackoff: Duration = .seconds(4)

    /// What the flags asked for.
    struct Settings: Sendable {
        var connectTimeout = ConnectFlags.defaultConnectTimeout
        var retryLimit = ConnectFlags.defaultRetryLimit
        var writeStallTimeout = ConnectFlags.defaultWriteStallTimeout
    }

    static func settings(_ flags: Flags) throws(UsageError) -> Settings {
        var settings = Settings()
        if let text = flags.value("--connect-timeout") {
            guard let seconds = Double(text), seconds >= 0.1, seconds <= 600 else {
                throw UsageError("--connect-timeout: \"\(text)\" is not a number of seconds in 0.1...600")
            }
            settings.connectTimeout = .milliseconds(Int((seconds * 1000).rounded()))
        }
        if let limit = try flags.integer("--retry-limit", as: Int.self, in: 0...1000) {
            settings.retryLimit = limit
        }
        if let seconds = try flags.integer("--write-stall-timeout", as: Int.self, in: 1...3600) {
            settings.writeStallTimeout = .seconds(seconds)
        }
        return settings
    }

    /// The binary gateway's options: its `connectionRetryLimit` 0 means unlimited, so no
    /// retry at all is `retriesConnections` off.
    static func apply(_ settings: Settings, to options: inout Connection.Options) {
        options.connectTimeout = settings.connectTimeout
        options.connectionRetryLimit = settings.retryLimit
        options.retriesConnections = settings.retryLimit > 0
        options.maxBackoff = maxBackoff
        options.writeStallTimeout = settings.writeStallTimeout
    }

    /// The provider's options: its `connectionRetryLimit` counts attempts, the first included.
    static func apply(_ settings: Settings, to options: inout Provider.Options) {
        options.connectTimeout = settings.connectTimeout
        options.connectionRetryLimit = settings.retryLimit + 1
    }

    /// The standard-error line for one failed attempt:
    /// `apn send: connecting to HOST:PORT failed: WHY; next try in 2 s` (or `; giving up`).
    static func attemptLine(host: String, port: UInt16, reason: String, nextAttemptIn next: Duration?) -> String {
        let address = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        let after = next.map { "next try in \(seconds($0)) s" } ?? "giving up"
        // A connection that was up and then given up (the gateway stopped reading, the
        // server answered nothing) is not a failure to connect: the session's messages for
        // those start "the gateway", the provider's "the server" or "the connection".
        if reason.hasPrefix("the gateway ") || reason.hasPrefix("the server ") || reason.hasPrefix("the connection ") {
            return "apn send: the connection to \(address) was given up: \(reason); \(after)"
        }
        return "apn send: connecting to \(address) failed: \(Self.reason(reason)); \(after)"
    }

    /// Why an attempt failed, short: a refused or unreachable TCP connect as its system
    /// error (`connection refused (errno 111)`; the address is already in the line), a
    /// proxy's failure as the proxy's sentence, else the error's message.
    static func reason(_ message: String) -> String {
        // Through a proxy, its own sentence says what failed (the line names the origin).
        if let proxy = message.range(of: ": the proxy ") { return String(message[message.index(proxy.lowerBound, offsetBy: 2)...]) }
        guard message.contains("TCP connect failed"), let marker = message.range(of: "errno ", options: .backwards),
              case let rest = message[marker.upperBound...], let space = rest.firstIndex(of: " ")
        else { return message }
        let text = rest[rest.index(after: space)...].trimmingCharacters(in: CharacterSet(charactersIn: "()"))
        return "\(text.lowercased()) (errno \(rest[..<space]))"
    }

    /// `2`, `0.25`: whole seconds without a fraction, else up to three decimals.
    static func seconds(_ duration: Duration) -> String {
        let milliseconds = duration.wholeMilliseconds
        if milliseconds % 1000 == 0 { return String(milliseconds / 1000) }
        var text = String(format: "%.3f", Double(milliseconds) / 1000)
        while text.hasSuffix("0") { text.removeLast() }
        return text
    }
}
