import APN
import APNBridge
import APNTLS
import APNWire
import Foundation

/// The flags of `apn bridge`, read into a ``Bridge/Configuration``: where it listens and
/// with which certificate, whom it serves (one tenant by flags, several by `--config`),
/// and where its notifications go (`--upstream`, `--sandbox`, `--upstream-ca`, `--proxy`).
enum BridgeFlags {
    static let about: String? = """
        A binary gateway (Apple's port 2195 protocol) and feedback service (2196) in front of
        Apple's HTTP/2 API: a legacy sender changes nothing but its host name.
        """

    /// The one-tenant flags, which `--config` excludes.
    static let tenantGroup = FlagGroup(
        "One tenant by flags:",
        [
            .valued("--topic", "TOPIC", "apns-topic of every notification (the bundle id)"),
            .valued("--key-id", "ID", "authenticate with a provider token signed by the .p8 key: its id (with --team-id, --p8)"),
            .valued("--team-id", "ID", "the key's team"),
            .valued("--p8", "FILE", "the .p8 signing key"),
            .valued("--upstream-cert", "FILE", "or with the push certificate (PEM; with --upstream-key)"),
            .valued("--upstream-key", "FILE", "its key"),
            .valued(
                "--push-type", "TYPE",
                "apns-push-type for all (default: background for a payload whose aps holds only content-available, "
                    + "else alert)"),
            .repeated(
                "--client-uid", "UID",
                "clients whose certificate's subject UID is UID (Apple push certificates carry the bundle id "
                    + "there); repeatable. Default: the topic"),
            .repeated(
                "--client-fingerprint", "HEX", "the client certificate with this SHA-256 fingerprint; repeatable"),
            .valued("--tenant", "NAME", "the tenant's name in logs and in the store (default: the topic)"),
        ])

    static let groups = [
        FlagGroup(
            "Listening:",
            [
                .valued("--host", "ADDR", "address both listeners bind", default: "127.0.0.1"),
                .valued("--port", "N", "gateway port (0: the system chooses)", default: "2195"),
                .valued("--feedback-port", "N", "feedback port (0: the system chooses)", default: "2196"),
                .valued(
                    "--certs", "DIR",
                    "DIR/server.pem and DIR/server.key are the bridge's certificate, DIR/ca.pem verifies clients (as "
                        + "written by `apn certs DIR`)"),
                .valued("--server-cert", "FILE", "the bridge's certificate instead of --certs (with --server-key)"),
                .valued("--server-key", "FILE", "its key"),
                .valued("--client-ca", "FILE", "client certificates must chain to this CA (instead of DIR/ca.pem)"),
            ]),
        FlagGroup(
            "Upstream (Apple's HTTP/2 API):",
            [
                .valued(
                    "--upstream", "HOST:PORT",
                    "default api.push.apple.com:443 (api.sandbox.push.apple.com:443 with --sandbox)"),
                .toggle("--sandbox", "Apple's sandbox environment"),
                .valued("--upstream-ca", "FILE", "trust this CA for the upstream (default: the system store)"),
                .valued("--max-streams", "N", "streams in flight per upstream connection", default: "1000"),
                ProxyFlag.flag,
            ]),
        tenantGroup,
        FlagGroup(
            "Configuration file:",
            [
                .valued(
                    "--config", "FILE",
                    "every flag (as \"flag_name\": value) and several \"tenants\" from a JSON file (docs/BRIDGE.md, "
                        + "\"Operating the bridge\"); a flag typed overrides it; re-read at SIGHUP"),
                .toggle(
                    "--check-config",
                    "print the effective configuration (secrets shown by their source, never their value) and exit 0, "
                        + "or exit 2 naming what is wrong"),
            ]),
        FlagGroup(
            "State and limits:",
            [
                .valued(
                    "--store", "FILE|URL",
                    "keep 410s for the feedback port, the resend record and the journal in this token store: a SQLite file or a "
                        + "postgresql:// URL (default: in memory, lost when the bridge stops)"),
                .valued(
                    "--window", "N", "unanswered notifications per connection before reading pauses", default: "10000"),
                .valued(
                    "--max-in-flight", "N",
                    "unanswered notifications across all connections before reading pauses, room then shared in "
                        + "turn (0: no bound; re-read at SIGHUP)", default: "500000"),
                .valued("--max-connections", "N", "client connections per listener", default: "1000"),
                .valued(
                    "--idle-timeout", "SECONDS", "close a client that sends nothing for SECONDS (default: never)"),
                .valued(
                    "--frame-timeout", "SECONDS",
                    "end a client's connection when a frame it began stays unfinished for SECONDS (0: never)",
                    default: "30"),
                .valued(
                    "--resend-retention", "SECONDS",
                    "how long what was forwarded after a refusal is remembered, to answer the client's resends "
                        + "without forwarding them again", default: "600"),
                .valued(
                    "--resend-capacity", "N", "how many such notifications are remembered per tenant",
                    default: "100000"),
                .valued(
                    "--journal-credit", "N",
                    "with --store, notifications a tenant hands upstream unanswered at once; a kill catches at most "
                        + "these between handed and written (default: the upstream's streams, 1000)"),
                .valued(
                    "--max-unjournaled", "N",
                    "with --store, notifications a tenant may have read and not yet journaled; at N its connections "
                        + "wait for the store: a crash loses at most these and one read a connection",
                    default: "4096"),
                .toggle(
                    "--session-tickets",
                    "issue TLS session tickets (default off: some legacy clients trip on TLS 1.3's post-handshake "
                        + "tickets)"),
                .valued("--tls-max", "1.2|1.3", "the newest TLS version offered", default: "1.3"),
                .valued("--grace", "SECONDS", "at SIGINT/SIGTERM, wait this long for upstream answers", default: "5"),
                .valued(
                    "--admin", "HOST:PORT",
                    "serve GET /metrics (Prometheus), /healthz and /readyz over plain HTTP here (an IPv4 address; "
                        + "keep it on loopback or a private network; port 0: the system chooses)"),
            ]),
        LogFlags.group,
    ]

    static let epilogue: String? = """
        Prints {"gateway":"HOST:PORT","feedback":"HOST:PORT"} once listening, logs connections,
        error responses and upstream events as JSON lines on standard error (never a token, key
        or payload), and at SIGINT or SIGTERM stops reading, waits for the answers due, tells
        every client status 10, prints a JSON summary and exits 0. Bad options exit with 2.
        """

    /// What the flags ask for: the bridge's configuration and how long a stop waits.
    struct Options {
        var configuration: Bridge.Configuration
        var grace: Duration
        /// `--admin`: where the admin listener binds, if anywhere.
        var admin: (host: String, port: UInt16)?
        /// The flags with the configuration file's merged in, and the file: what
        /// `--check-config` shows.
        var flags: Flags
        var file: ConfigFile?
    }

    /// The keys of `--config`'s file that are not flags.
    static let fileKeys: Set<String> = ["tenants"]

    /// Reads and checks the flags, and the files they name (certificates, keys, the
    /// configuration), so a mistake is told at start, not at the first notification.
    static func parse(_ typed: Flags) throws -> Options {
        let (flags, file) = try Flags.withConfigFile(
            typed, groups: groups, commandKeys: fileKeys, excluded: ["--check-config"])
        guard flags.positional.isEmpty else {
            throw UsageError("bridge takes no arguments, got \"\(flags.positional[0])\"")
        }
        // The flags first, the files they name after: a mistyped number is told as such.
        let host = flags.value("--host") ?? "127.0.0.1"
        guard !host.isEmpty else { throw UsageError("--host must not be empty") }
        let gatewayPort = try flags.integer("--port", in: 0...UInt16.max) ?? 2195
        let feedbackPort = try flags.integer("--feedback-port", in: 0...UInt16.max) ?? 2196
        let window = try flags.integer("--window", in: 1...1_000_000)
        let maxConnections = try flags.integer("--max-connections", in: 1...100_000)
        let maxInFlight = try flags.integer("--max-in-flight", in: 0...100_000_000)
        let idleTimeout = try flags.integer("--idle-timeout", in: 0...86_400)
        let frameTimeout = try flags.integer("--frame-timeout", in: 0...86_400)
        let store = flags.value("--store")
        if store?.isEmpty == true { throw UsageError("--store must not be empty") }
        let grace = try flags.integer("--grace", in: 0...3_600) ?? 5
        let retention = try flags.integer("--resend-retention", in: 0...86_400)
        let capacity = try flags.integer("--resend-capacity", in: 0...10_000_000)
        let credit = try flags.integer("--journal-credit", in: 1...1_000_000)
        let maxUnjournaled = try flags.integer("--max-unjournaled", in: 1...1_000_000)
        var maximumVersion: TLSVersion?
        if let text = flags.value("--tls-max") {
            let versions: [String: TLSVersion] = ["1.2": .tls1_2, "1.3": .tls1_3]
            guard let version = versions[text] else { throw UsageError("--tls-max: \"\(text)\" is not 1.2 or 1.3") }
            maximumVersion = version
        }

        let tenants = try tenants(flags, file: file)
        let (serverCredentials, clientAuthorities) = try server(flags)
        var configuration = Bridge.Configuration(
            serverCredentials: serverCredentials, clientCertificateAuthorities: clientAuthorities, tenants: tenants,
            upstream: try upstream(flags))
        configuration.logHandler = BridgeLogHandler(base: try LogFlags.handler(flags))
        configuration.host = host
        configuration.gatewayPort = gatewayPort
        configuration.feedbackPort = feedbackPort
        configuration.storePath = store
        if let window { configuration.window = window }
        if let maxConnections { configuration.maxConnections = maxConnections }
        if let maxInFlight { configuration.maxInFlight = maxInFlight == 0 ? nil : maxInFlight }
        if let idleTimeout { configuration.idleTimeout = idleTimeout == 0 ? nil : .seconds(idleTimeout) }
        if let frameTimeout { configuration.frameTimeout = frameTimeout == 0 ? nil : .seconds(frameTimeout) }
        if let retention { configuration.resendRetention = .seconds(retention) }
        if let capacity { configuration.resendCapacity = capacity }
        if let credit { configuration.journalCredit = credit }
        if let maxUnjournaled { configuration.maxUnjournaled = maxUnjournaled }
        configuration.sessionTickets = flags.has("--session-tickets")
        configuration.maximumTLSVersion = maximumVersion
        return Options(
            configuration: configuration, grace: .seconds(grace), admin: try AdminFlag.parse(flags), flags: flags, file: file)
    }

    // MARK: the bridge's own certificate

    private static func server(_ flags: Flags) throws -> (TLSCredentials, [TLSCertificate]) {
        let directory = flags.value("--certs")
        var certificate = directory.map { PathText.join($0, "server.pem") }
        var key = directory.map { PathText.join($0, "server.key") }
        var clientCA = directory.map { PathText.join($0, "ca.pem") }
        if let given = flags.value("--server-cert") { certificate = given }
        if let given = flags.value("--server-key") { key = given }
        if let given = flags.value("--client-ca") { clientCA = given }
        guard let certificate, let key else {
            throw UsageError("the bridge needs its certificate: --certs DIR, or --server-cert FILE and --server-key FILE")
        }
        guard let clientCA else {
            throw UsageError("the bridge verifies its clients: --client-ca FILE (or --certs DIR with ca.pem)")
        }
        let credentials: TLSCredentials
        let authorities: [TLSCertificate]
        do {
            credentials = try TLSCredentials(certificateFile: certificate, keyFile: key)
            authorities = try TLSCertificate.certificates(fromPEM: try FileBytes.read(clientCA))
        } catch {
            throw UsageError("the bridge's certificates: \(error)")
        }
        guard !authorities.isEmpty else { throw UsageError("--client-ca \(clientCA): no certificate in it") }
        return (credentials, authorities)
    }

    // MARK: upstream

    private static func upstream(_ flags: Flags) throws -> Provider.Options {
        var options = Provider.Options()
        options.logHandler = try LogFlags.handler(flags)
        options.production = !flags.has("--sandbox")
        if let text = flags.value("--upstream") {
            let (host, port) = Flags.splitSuffix(text)
            guard let port, !host.isEmpty else { throw UsageError("--upstream needs HOST:PORT, got \"\(text)\"") }
            options.address = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
            options.port = try Flags.integer(port, as: UInt16.self, in: 1...65535, what: "--upstream port")
        }
        if let ca = flags.value("--upstream-ca") {
            do {
                _ = try TLSCertificate.certificates(fromPEM: try FileBytes.read(ca))
            } catch {
                throw UsageError("--upstream-ca: \(error)")
            }
            options.ca = [.file(ca)]
        }
        if let streams = try flags.integer("--max-streams", as: Int.self, in: 1...100_000) {
            options.maxConcurrentStreams = streams
        }
        options.proxy = try ProxyFlag.proxy(flags, host: options.host)
        return options
    }

    // MARK: tenants

    private static func tenants(_ flags: Flags, file: ConfigFile?) throws -> BridgeTenants {
        if let file, let list = file.document["tenants"] {
            let path = file.path
            if let flag = tenantGroup.flags.map(\.name).sorted().first(where: { flags.value($0) != nil }) {
                throw UsageError("--config \(path) gives \"tenants\": it excludes \(flag)")
            }
            let tenants: BridgeTenants
            do {
                let bytes = APN.JSONValue.object(["tenants": list]).jsonBytes()
                tenants = try BridgeTenants.parse(json: bytes)
            } catch {
                throw UsageError("--config \(path): \(error)")
            }
            for tenant in tenants.all { try checkCredentials(tenant.upstream, place: "--config \(path), \(tenant.name)") }
            return tenants
        }
        guard let topic = flags.value("--topic"), !topic.isEmpty else {
            throw UsageError(
                "the bridge needs --topic (the bundle id, apns-topic) and credentials, or --config FILE with \"tenants\"")
        }
        var pushType: PushType?
        if let text = flags.value("--push-type") {
            guard let known = PushType.documented.first(where: { $0.rawValue == text }) else {
                throw UsageError(
                    "--push-type: \"\(text)\" is not one of \(PushType.documented.map(\.rawValue).joined(separator: ", "))")
            }
            pushType = known
        }
        let tokenFlags = ["--key-id", "--team-id", "--p8"].filter { flags.value($0) != nil }
        let certificateFlags = ["--upstream-cert", "--upstream-key"].filter { flags.value($0) != nil }
        let upstream: BridgeTenant.Upstream
        switch (tokenFlags.count, certificateFlags.count) {
        case (3, 0):
            upstream = .token(keyID: flags.value("--key-id")!, teamID: flags.value("--team-id")!, p8: flags.value("--p8")!)
        case (0, 2):
            upstream = .certificate(cert: flags.value("--upstream-cert")!, key: flags.value("--upstream-key")!)
        case (0, 0):
            throw UsageError(
                "the bridge needs upstream credentials: --key-id, --team-id and --p8, or --upstream-cert and --upstream-key")
        default:
            throw UsageError(
                "upstream credentials are --key-id, --team-id and --p8, or --upstream-cert and --upstream-key, "
                    + "not a mix (got \((tokenFlags + certificateFlags).joined(separator: ", ")))")
        }
        try checkCredentials(upstream, place: "upstream")
        var matches: [BridgeTenant.Match] = flags.all("--client-uid").map { .userID($0) }
        for text in flags.all("--client-fingerprint") {
            guard let digest = bytes(fromHex: text.filter { $0 != ":" }), digest.count == 32 else {
                throw UsageError("--client-fingerprint: \"\(text)\" is not a SHA-256 fingerprint (64 hex digits)")
            }
            matches.append(.fingerprint(digest))
        }
        if matches.isEmpty { matches = [.userID(topic)] }
        let tenant = BridgeTenant(
            name: flags.value("--tenant") ?? topic, matches: matches, topic: topic, upstream: upstream, pushType: pushType)
        do {
            return try BridgeTenants([tenant])
        } catch {
            throw UsageError("\(error)")
        }
    }

    /// Reads the key (or certificate and key) once, so a missing or unreadable file fails
    /// the start rather than the first notification; nothing of its content is kept.
    private static func checkCredentials(_ upstream: BridgeTenant.Upstream, place: String) throws {
        do {
            switch upstream {
            case .token(_, _, let p8): _ = try ES256SigningKey(p8File: p8)
            case .certificate(let cert, let key): _ = try TLSCredentials(certificateFile: cert, keyFile: key)
            }
        } catch {
            throw UsageError("\(place): \(error)")
        }
    }
}
