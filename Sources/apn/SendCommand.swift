import APN
import Foundation

/// `apn send …`: sends one notification to many devices and reports what was not accepted.
enum SendCommand: Subcommand {
    static let name = "send"
    static let summary = "send notifications to the gateway (or `apn mock-gateway`)"
    static let synopsis = "[options] (--token HEX ... | --tokens-file FILE) (--alert TEXT ... | --payload JSON)"
    static let flagGroups = [
        CredentialFlags.group(
            address: "the gateway", sandbox: "gateway.sandbox.push.apple.com:2195",
            production: "gateway.push.apple.com:2195"),
        FlagGroup(
            "Sending:",
            [
                .valued("--format", "simple|enhanced|frame", "command 0, 1 or 2", default: "enhanced"),
                .toggle("--fast", "write as much as the socket takes per write (bulk sending)"),
                .valued("--max-connections", "N", "open up to N sockets", default: "1"),
            ]),
        FlagGroup(
            "Recipients:",
            [
                .repeated("--token", "HEX", "a device token; repeatable"),
                .valued(
                    "--tokens-file", "FILE",
                    "one token per line (- for standard input); blank lines and lines starting with # are skipped; "
                        + "a bad line is reported and skipped"),
            ]),
        PayloadFlags.group,
        LiveActivityFlags.group,
        FlagGroup(
            "Output (the same for both protocols; README's \"apn send output\" lists every key):",
            [
                .toggle("--all", "a line for every notification, not only for those not accepted"),
                .toggle("--no-confirm", "end by waiting the grace window instead of a confirmed flush"),
            ],
            notes: """
                  one JSON line per notification not accepted (--all: every one):
                    {"token":HEX,"outcome":"accepted|rejected|failed|unknown_fate|not_sent",…,"description":TEXT}
                  with the protocol's detail in extra keys (binary: "status", "possibly_duplicated";
                  --http2: "http_status", "reason", "apns_id", "attempts"; "error" when failed or unknown_fate),
                  then one summary line:
                    {"protocol":"binary|http2","total":N,"accepted":N,"rejected":N,"failed":N,"unknown_fate":N,
                     "not_sent":N,"invalid_tokens":N,"interrupted":false,"seconds":S.sss,"per_second":N,…}
                  and a progress line on standard error when it is a terminal. Accepted means the gateway
                  took it (with --http2: Apple answered 200), not that the device received it.
                """),
        ConnectFlags.group,
        FlagGroup(
            nil, [],
            notes: """
                Interrupting (SIGINT, Ctrl-C, or SIGTERM): hands nothing more over, waits up to 2.5 s for the
                  outcomes of what is in flight, prints a line for each notification not accepted
                  ({"outcome":"not_sent"} for those never sent, "unknown_fate" for those still unanswered)
                  and the summary ("interrupted":true), and exits 130. A second signal exits 130 at once.
                """),
        ProviderFlags.group,
        LogFlags.group,
    ]
    static let epilogue: String? = """
        Exits 0 when every notification was accepted, 1 when some were not, 2 on bad usage (no credentials,
        no recipients, no payload flag among them), 130 when interrupted.
        """

    /// The resend cache's memory for `apn send` (``Connection/Options/cacheMemoryLimit``).
    static let cacheMemoryLimit = 24 << 20

    static func run(_ flags: Flags) throws -> Int32 {
        guard flags.positional.isEmpty else {
            throw UsageError("send takes no arguments, got \"\(flags.positional[0])\" (tokens go in --token)")
        }
        // Before the tokens are read (standard input may be slow): a signal from now on
        // stops the send instead of killing it.
        let interrupt = SendInterrupt()
        if flags.has("--http2") { return try runHTTP2(flags, interrupt: interrupt) }
        if let flag = (ProviderFlags.http2Only(flags) + LiveActivityFlags.names.filter(flags.given)).first {
            throw UsageError("\(flag) is for the HTTP/2 provider API: add --http2")
        }
        var options = Connection.Options()
        options.logHandler = try LogFlags.handler(flags)
        let credentials = try CredentialFlags(flags)
        credentials.apply(to: &options.access)
        ConnectFlags.apply(try ConnectFlags.settings(flags), to: &options)
        if let format = flags.value("--format") {
            let formats: [String: Command] = ["simple": .simple, "enhanced": .enhanced, "frame": .frame]
            guard let chosen = formats[format] else {
                throw UsageError("--format: \"\(format)\" is not one of simple, enhanced, frame")
            }
            options.format = chosen
        }
        options.fastMode = flags.has("--fast")
        // A quarter of the library's default: a socket that holds this much written and
        // unconfirmed writes a confirmation marker, whose answer settles (and frees) all
        // before it — a bulk send keeps its memory bounded instead of holding a million
        // notifications until the end, at the cost of a round trip per marker.
        options.cacheMemoryLimit = Self.cacheMemoryLimit
        // No socket kept open for its own sake (the library keeps one, as node-apn 1.7.5+): a
        // send's last confirmation marker is answered with a close, and a socket reopened
        // then only to be shut down cost every `apn send` a TLS handshake. Sockets still open
        // for every notification there is to write.
        options.minConnections = 0
        if let connections = try flags.integer("--max-connections", as: Int.self, in: 1...64) {
            options.maxConnections = connections
        }
        let note = try PayloadFlags.notification(flags)
        if note.priority != 10 {
            // Only command 2 carries a priority: chosen for it unless a format was asked for,
            // which is then bad usage rather than every notification refused.
            guard flags.value("--format") == nil || options.format == .frame else {
                throw UsageError("--priority \(note.priority) needs --format frame (commands 0 and 1 carry no priority)")
            }
            options.format = .frame
        }
        if note.expiry != 0, options.format == .simple {
            throw UsageError("--expiry needs --format enhanced or frame (command 0 carries no expiry)")
        }
        let recipients = try TokenList.supply(recipientsOf: flags, binary: true)
        PayloadFlags.trim(note, to: options.payloadLimit, flags)
        do throws(APNError) {
            try note.validate(for: options.format, voip: options.voip)
        } catch where error.code == .payloadTooLarge {
            let format = options.format == .frame ? "command 2 (frame)" : options.format == .simple ? "command 0 (simple)" : "command 1 (enhanced)"
            throw PayloadFlags.tooLarge(
                error, format: format,
                alternatives: options.format == .frame ? "--http2 (4096 bytes), " : "--format frame (2048 bytes), ", flags)
        } catch {
            throw UsageError(ErrorText.message(error))
        }
        // Last, so that a mistake in what was given is told before what is missing.
        try credentials.requireCertificate()
        try PayloadFlags.requirePayload(flags)
        KeptUntilExit.keep(recipients)
        let sending = SendRun(
            options: options,
            job: SendJob(notification: note, recipients: recipients, all: flags.has("--all"), interrupt: interrupt),
            confirm: !flags.has("--no-confirm"))
        return runBlocking { await sending.run() }
    }

    /// `apn send --http2`: the same recipients and payload through the provider API.
    private static func runHTTP2(_ flags: Flags, interrupt: SendInterrupt) throws -> Int32 {
        for binaryOnly in ["--format", "--fast", "--no-confirm"] where flags.given(binaryOnly) {
            throw UsageError("\(binaryOnly) is for the binary gateway, not --http2")
        }
        var options = try ProviderFlags.options(flags)
        ConnectFlags.apply(try ConnectFlags.settings(flags), to: &options)
        let note = try PayloadFlags.notification(flags)
        try ProviderFlags.applyHeaders(flags, to: note)
        let channel = flags.value("--channel")
        // A broadcast names the bundle id itself: the Live Activity topic suffix is not needed.
        try LiveActivityFlags.apply(flags, to: note, topic: channel == nil ? note.topic ?? options.topic : nil)
        guard [10, 5, 1].contains(note.priority) else {
            throw UsageError("--priority \(note.priority): the provider API takes 10, 5 or 1")
        }
        if let channel {
            return try BroadcastSendRun.run(flags, note: note, channel: channel, options: options, interrupt: interrupt)
        }
        let list = try TokenList(recipientsOf: flags, binary: false)
        let store = try ProviderFlags.store(flags)
        // Apple's limit: 4 KB, 5 KB for VoIP (the provider refuses a longer one per notification).
        PayloadFlags.trim(note, to: note.pushType == .voip ? 5_120 : 4_096, flags)
        try ProviderFlags.requireCredentials(options, flags)
        try PayloadFlags.requirePayload(flags)
        KeptUntilExit.keep(list.devices)
        let sending = ProviderSendRun(
            options: options, job: SendJob(notification: note, tokens: list, all: flags.has("--all"), interrupt: interrupt),
            store: store)
        return runBlocking { await sending.run() }
    }
}
