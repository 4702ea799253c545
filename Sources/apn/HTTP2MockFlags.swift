import APN
import APNTLS
import Foundation
import APNMockGateway

/// The flags of `apn mock-gateway --http2`: an ``HTTP2MockGateway`` beside the binary
/// gateway, on its own port, with its provider-token keys and faults.
enum HTTP2MockFlags {
    static let group = FlagGroup(
        "HTTP/2 provider API (--http2: also serve Apple's HTTP/2 API, POST /3/device/TOKEN, on its own port):",
        [
            .toggle("--http2", "serve it; the start line then has \"http2\":\"HOST:PORT\""),
            .valued("--http2-port", "N", "its port (0: the system chooses)", default: "0"),
            .repeated(
                "--provider-key", "KEYID:TEAMID:FILE",
                "accept provider tokens signed by the key in FILE (a public key PEM, or the .p8 itself) for team "
                    + "TEAMID; repeatable. With --certs DIR holding AuthKey_MOCKKEY001.pub.pem (apn certs writes it), "
                    + "that key is accepted as MOCKKEY001 of team MOCKTEAM01."),
            .repeated(
                "--team-topics", "TEAMID:TOPIC[,TOPIC...]",
                "the only topics team TEAMID's provider tokens may push to; others get 400 TopicDisallowed (without "
                    + "it, any topic); repeatable"),
            .valued(
                "--http2-environment", "sandbox|production",
                "the environment it is: a client certificate marked for the other one only (apn certs "
                    + "--environment) gets 403 BadCertificateEnvironment", default: "sandbox"),
            .repeated("--http2-reason", "TOKEN:REASON", "refuse a token (hex) with one of Apple's reasons (its status); repeatable"),
            .repeated("--http2-unregistered", "TOKEN:MS", "answer 410 Unregistered for a token, last valid MS ms after 1970; repeatable"),
            .valued("--http2-fail", "N[:REASON]", "answer the next N requests 500 InternalServerError (or REASON)"),
            .valued("--http2-throttle", "N:COUNT", "after N accepted, answer COUNT requests 429 TooManyRequests"),
            .valued("--http2-goaway-after", "N", "send GOAWAY after N requests on each connection"),
            .valued(
                "--http2-reset-after", "N", "reset a connection at its N-th request, leaving its open streams unanswered"),
            .valued(
                "--http2-stall-after", "N",
                "a connection goes silent at its N-th request: nothing more answered, PINGs included"),
            .valued("--http2-delay-ms", "MS", "hold every answer back MS milliseconds"),
            .valued("--http2-max-streams", "N", "SETTINGS_MAX_CONCURRENT_STREAMS", default: "1000"),
            .valued(
                "--http2-channel-limit", "N",
                "broadcast channels per bundle id (POST /1/apps/BUNDLE/channels beyond: 400 CannotCreateChannelConfig)",
                default: "10000"),
            .toggle(
                "--http2-broadcast-disabled",
                "answer every channel management and broadcast request 400 FeatureNotEnabled (no Broadcast capability)"),
        ])

    /// The HTTP/2 gateway's configuration from the flags, or nil without `--http2` (then
    /// its other flags are bad usage).
    static func configuration(_ flags: Flags, host: String) throws(UsageError) -> HTTP2MockGateway.Configuration? {
        guard flags.has("--http2") else {
            if let flag = group.flags.map(\.name).sorted().first(where: flags.given) {
                throw UsageError("\(flag) needs --http2")
            }
            return nil
        }
        var configuration = HTTP2MockGateway.Configuration(host: host)
        configuration.port = try flags.integer("--http2-port", in: 0...UInt16.max) ?? 0
        if let streams = try flags.integer("--http2-max-streams", as: UInt32.self, in: 1...100_000) {
            configuration.maxConcurrentStreams = streams
        }
        if let limit = try flags.integer("--http2-channel-limit", in: 0...1_000_000) {
            configuration.channelLimit = limit
        }
        for text in flags.all("--provider-key") {
            let parts = text.split(separator: ":", maxSplits: 2).map(String.init)
            guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty else {
                throw UsageError("--provider-key needs KEYID:TEAMID:FILE, got \"\(text)\"")
            }
            configuration.providerKeys[parts[0]] = .init(teamID: parts[1], key: try publicKey(parts[2]))
        }
        for text in flags.all("--team-topics") {
            let (team, topics) = Flags.splitSuffix(text)
            let list = topics?.split(separator: ",").map(String.init) ?? []
            guard !team.isEmpty, !list.isEmpty, !list.contains(where: \.isEmpty) else {
                throw UsageError("--team-topics needs TEAMID:TOPIC[,TOPIC...], got \"\(text)\"")
            }
            configuration.teamTopics[team, default: []] += list
        }
        if let name = flags.value("--http2-environment") {
            let environments: [String: PushEnvironment] = ["sandbox": .sandbox, "production": .production]
            guard let environment = environments[name] else {
                throw UsageError("--http2-environment: \"\(name)\" is not one of sandbox, production")
            }
            configuration.environment = environment
        }
        var faults = HTTP2MockGateway.Faults()
        for text in flags.all("--http2-reason") {
            let (token, reason) = try tokenAnd(text, flag: "--http2-reason")
            faults.rejectToken(token, reason: try knownReason(reason, flag: "--http2-reason"))
        }
        for text in flags.all("--http2-unregistered") {
            let (token, milliseconds) = try tokenAnd(text, flag: "--http2-unregistered")
            let since = try Flags.integer(milliseconds, in: 0...Int64.max, what: "--http2-unregistered milliseconds")
            faults.unregisterToken(token, since: Date(timeIntervalSince1970: Double(since) / 1_000))
        }
        if let text = flags.value("--http2-fail") {
            let (count, reason) = Flags.splitSuffix(text)
            faults.failNextRequests(
                try Flags.integer(count, in: 0...Int.max, what: "--http2-fail"),
                reason: try reason.map { (name) throws(UsageError) in try knownReason(name, flag: "--http2-fail") }
                    ?? .internalServerError)
        }
        if let text = flags.value("--http2-throttle") {
            let (after, count) = Flags.splitSuffix(text)
            guard let count else { throw UsageError("--http2-throttle needs N:COUNT, got \"\(text)\"") }
            faults.throttle(
                afterAccepting: try Flags.integer(after, in: 0...Int.max, what: "--http2-throttle"),
                refusing: try Flags.integer(count, in: 1...Int.max, what: "--http2-throttle count"))
        }
        faults.goawayAfterRequests = try flags.integer("--http2-goaway-after", in: 1...Int.max)
        faults.resetAfterRequests = try flags.integer("--http2-reset-after", in: 1...Int.max)
        faults.stallAfterRequests = try flags.integer("--http2-stall-after", in: 1...Int.max)
        if let delay = try flags.integer("--http2-delay-ms", in: 0...3_600_000) {
            faults.responseDelay = .milliseconds(delay)
        }
        faults.broadcastDisabled = flags.has("--http2-broadcast-disabled")
        configuration.faults = faults
        return configuration
    }

    /// Adds the key `apn certs` wrote into `directory`, unless keys were given.
    static func addCertificateDirectoryKey(_ configuration: inout HTTP2MockGateway.Configuration, from directory: String)
        throws(UsageError)
    {
        guard configuration.providerKeys.isEmpty else { return }
        let path = PathText.join(directory, CertificateFiles.providerPublicKeyFile)
        guard FileManager.default.fileExists(atPath: path) else { return }
        configuration.providerKeys[CertificateFiles.providerKeyID] = .init(
            teamID: CertificateFiles.providerTeamID, key: try publicKey(path))
    }

    private static func publicKey(_ path: String) throws(UsageError) -> ES256VerificationKey {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw UsageError("--provider-key: cannot read \(path)")
        }
        do throws(TLSError) {
            return try ES256VerificationKey(pem: Array(data))
        } catch {
            throw UsageError("--provider-key \(path): \(error)")
        }
    }

    private static func tokenAnd(_ text: String, flag: String) throws(UsageError) -> (String, String) {
        let (token, value) = Flags.splitSuffix(text)
        guard let value, !token.isEmpty, token.allSatisfy(\.isHexDigit) else {
            throw UsageError("\(flag) needs TOKEN:VALUE with the token in hex, got \"\(text)\"")
        }
        return (token, value)
    }

    private static func knownReason(_ name: String, flag: String) throws(UsageError) -> ProviderReason {
        guard let reason = ProviderReason.documented.first(where: { $0.rawValue == name }) else {
            throw UsageError("\(flag): \"\(name)\" is not one of Apple's reasons (e.g. BadDeviceToken, Unregistered)")
        }
        return reason
    }
}
