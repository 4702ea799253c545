import APN
import Foundation

/// The flags of `apn send --http2`: provider-token authentication (`--key-id`,
/// `--team-id`, `--p8`, or `--provider-token`), the HTTP/2 headers (`--topic`,
/// `--push-type`, `--collapse-id`), the streams (`--max-streams`) and the proxy
/// (`--proxy`). Certificates and
/// the address come from ``CredentialFlags``.
enum ProviderFlags {
    /// The environment variable a provider token is read from when no flag gives one.
    static let tokenVariable = "APN_PROVIDER_TOKEN"

    static let group = FlagGroup(
        "HTTP/2 provider API (--http2; default address api.sandbox.push.apple.com:443, api.push.apple.com:443 with "
            + "--production):",
        [.toggle("--http2", "send through the HTTP/2 provider API instead of the binary gateway")] + authentication
            + [
            .valued("--topic", "TOPIC", "apns-topic (the bundle id; required with provider tokens)"),
            .valued("--channel", "ID", "broadcast to this channel (iOS 18 broadcast push) instead of to tokens"),
            .valued("--push-type", "TYPE", "apns-push-type: \(PushType.documented.map(\.rawValue).joined(separator: ", "))"),
            .valued("--collapse-id", "ID", "apns-collapse-id (at most 64 bytes)"),
            .valued("--max-streams", "N", "streams in flight per connection", default: "1000"),
            ProxyFlag.flag,
            .valued(
                "--request-timeout", "SECONDS",
                "how long Apple may take to answer a notification once it is written (time queued for a stream does "
                    + "not count); unanswered, it may have been delivered and is not sent again", default: "30"),
            .valued(
                "--store", "FILE",
                "mark every token Apple answers 410 for inactive in this token store (as `apn feedback-service` does: "
                    + "a later registration keeps it); the store must take a write before anything is sent; a commit "
                    + "that fails leaves its tuples in FILE.feedback-recovery-*.jsonl"),
            .valued("--min-free", "BYTES", "room the store's disk must have first", default: "1 MiB"),
        ],
        notes: "  Without --key-id, --provider-token or --provider-token-file, a provider token is $\(tokenVariable), if set.")

    /// Provider-token authentication, shared with `apn channels`.
    static let authentication: [Flag] = [
        .valued("--key-id", "ID", "provider-token authentication (else the certificate): the .p8 key's id; with "
            + "--team-id and --p8"),
        .valued("--team-id", "ID", "the team the key belongs to"),
        .valued("--p8", "FILE", "the .p8 signing key"),
        .valued(
            "--provider-token", "JWT",
            "a provider token made elsewhere, sent as it is; it shows in `ps`, so prefer --provider-token-file or "
                + "$\(tokenVariable)"),
        .valued("--provider-token-file", "FILE", "read the provider token from FILE's first line instead"),
    ]

    /// The flags only `--http2` gives meaning to.
    static let http2OnlyFlags = group.flags.map(\.name).filter { $0 != "--http2" }

    /// The provider options these flags (and the credential flags) ask for.
    static func options(_ flags: Flags) throws(UsageError) -> Provider.Options {
        var options = try authenticatedOptions(flags)
        options.proxy = try ProxyFlag.proxy(flags, host: options.host)
        if let streams = try flags.integer("--max-streams", as: Int.self, in: 1...100_000) {
            options.maxConcurrentStreams = streams
        }
        if let connections = try flags.integer("--max-connections", as: Int.self, in: 1...64) {
            options.maxConnections = connections
        }
        try applyRequestTimeout(flags, to: &options)
        return options
    }

    /// The log, the credentials, the provider token and `--topic` (required with provider
    /// tokens): what every command speaking to Apple's HTTP/2 API reads (`apn channels`).
    static func authenticatedOptions(_ flags: Flags) throws(UsageError) -> Provider.Options {
        var options = Provider.Options()
        options.logHandler = try LogFlags.handler(flags)
        let credentials = try CredentialFlags(flags)
        credentials.apply(to: &options.access)
        let tokenFlags = ["--key-id", "--team-id", "--p8"].filter { flags.value($0) != nil }
        let givenToken = flags.value("--provider-token") ?? flags.value("--provider-token-file")
        if givenToken != nil, let flag = tokenFlags.first {
            throw UsageError("\(flags.value("--provider-token") != nil ? "--provider-token" : "--provider-token-file") excludes \(flag)")
        }
        // The environment's token only when no flag chose the credentials: a variable left
        // set must not override --certs (a flag wins over the environment).
        if tokenFlags.isEmpty, let token = try SecretInput.read(
            flags, flag: "--provider-token", fileFlag: "--provider-token-file", variable: tokenVariable,
            environmentAllowed: !credentials.hasCertificate)
        {
            options.authentication = .existingToken(token)
        } else if !tokenFlags.isEmpty {
            guard let keyID = flags.value("--key-id"), let teamID = flags.value("--team-id"),
                let p8 = flags.value("--p8")
            else {
                throw UsageError("provider tokens need all of --key-id, --team-id and --p8")
            }
            options.authentication = .token(keyID: keyID, teamID: teamID, key: .file(p8))
        }
        options.topic = flags.value("--topic")
        if options.authentication != .certificate && options.topic == nil {
            throw UsageError("provider tokens need --topic (apns-topic, the app's bundle id)")
        }
        return options
    }

    /// `--request-timeout SECONDS`, when given.
    static func applyRequestTimeout(_ flags: Flags, to options: inout Provider.Options) throws(UsageError) {
        guard let text = flags.value("--request-timeout") else { return }
        guard let seconds = Double(text), seconds >= 0.1, seconds <= 3_600 else {
            throw UsageError("--request-timeout: \"\(text)\" is not a number of seconds in 0.1...3600")
        }
        options.requestTimeout = .milliseconds(Int((seconds * 1_000).rounded()))
    }

    /// Refuses options with neither a certificate nor a provider token (the library would
    /// look for cert.pem and key.pem in the current folder), naming the flags for both.
    static func requireCredentials(_ options: Provider.Options, _ flags: Flags) throws(UsageError) {
        guard options.authentication == .certificate else { return }
        try CredentialFlags(flags).requireCertificate(
            orElse: ", or a provider token (--key-id, --team-id and --p8; --provider-token, --provider-token-file or "
                + "$\(tokenVariable))")
    }

    /// `--store FILE` and `--min-free BYTES`, when `--store` is given.
    static func store(_ flags: Flags) throws(UsageError) -> (path: String, minimumFreeBytes: Int)? {
        let room = try flags.integer("--min-free", as: Int.self, in: 0...(1 << 40))
        guard let path = flags.value("--store") else {
            if room != nil { throw UsageError("--min-free needs --store FILE") }
            return nil
        }
        guard !path.isEmpty else { throw UsageError("--store: give a file") }
        return (path, room ?? 1 << 20)
    }

    /// Applies `--push-type` and `--collapse-id` to the notification.
    static func applyHeaders(_ flags: Flags, to note: APN.Notification) throws(UsageError) {
        if let type = flags.value("--push-type") {
            guard PushType.documented.contains(PushType(rawValue: type)) else {
                throw UsageError(
                    "--push-type: \"\(type)\" is not one of \(PushType.documented.map(\.rawValue).joined(separator: ", "))")
            }
            note.setPushType(PushType(rawValue: type))
        }
        if let collapseID = flags.value("--collapse-id") { note.setCollapseID(collapseID) }
    }

    /// The flags only `--http2` gives meaning to, among those given.
    static func http2Only(_ flags: Flags) -> [String] {
        http2OnlyFlags.filter(flags.given)
    }
}

