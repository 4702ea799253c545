import APN
import Foundation

/// `apn send …`: sends one notification to many devices and reports what was not accepted.
enum SendCommand {
    static let usage = """
        usage: apn send [options] (--token HEX ... | --tokens-file FILE)
        \(CredentialFlags.usage(
            address: "the gateway", sandbox: "gateway.sandbox.push.apple.com:2195",
            production: "gateway.push.apple.com:2195"))
          --format simple|enhanced|frame   command 0, 1 or 2 (default enhanced)
          --fast                    write as much as the socket takes per write (bulk sending)
          --max-connections N       open up to N sockets (default 1)
        Recipients:
          --token HEX               a device token; repeatable
          --tokens-file FILE        one token per line (- for standard input); blank lines and lines
                                    starting with # are skipped; a bad line is reported and skipped
        Payload, either as JSON text (sent as given: key order and number text kept):
          --payload JSON | --payload-file FILE
        or built from:
          --alert TEXT --title TEXT --badge N --sound NAME --category NAME
          --content-available --mutable-content --custom KEY=JSON (repeatable)
          --expiry UNIXTIME         when the gateway may stop trying (default 0)
          --priority N              10 (default) or 5; other than 10 sends command 2 (--format frame)
        Output (the same for both protocols; README's "apn send output" lists every key):
          one JSON line per notification not accepted (--all: every one):
            {"token":HEX,"outcome":"accepted|rejected|failed|unknown_fate|not_sent",…,"description":TEXT}
          with the protocol's detail in extra keys (binary: "status", "possibly_duplicated";
          --http2: "http_status", "reason", "apns_id", "attempts"; "error" when failed or unknown_fate),
          then one summary line:
            {"protocol":"binary|http2","total":N,"accepted":N,"rejected":N,"failed":N,"unknown_fate":N,
             "not_sent":N,"invalid_tokens":N,"interrupted":false,"seconds":S.sss,"per_second":N,…}
          and a progress line on standard error when it is a terminal. Accepted means the gateway
          took it (with --http2: Apple answered 200), not that the device received it.
          --no-confirm              end by waiting the grace window instead of a confirmed flush
        \(ConnectFlags.usage)
          e.g. apn send: connecting to 127.0.0.1:2195 failed: connection refused (errno 111); next try in 1 s
          (the last: "...; giving up")
        Interrupting (SIGINT, Ctrl-C, or SIGTERM): hands nothing more over, waits up to 2.5 s for the
          outcomes of what is in flight, prints a line for each notification not accepted
          ({"outcome":"not_sent"} for those never sent, "unknown_fate" for those still unanswered)
          and the summary ("interrupted":true), and exits 130. A second signal exits 130 at once.
        \(ProviderFlags.usage)
        Exits 0 when every notification was accepted, 1 when some were not, 2 on bad usage,
        130 when interrupted.
        """

    private static let valued = CredentialFlags.valued.union(PayloadFlags.valued).union(ProviderFlags.valued)
        .union(ConnectFlags.valued).union([
        "--format", "--max-connections", "--token", "--tokens-file",
    ])
    private static let switches = CredentialFlags.switches.union(PayloadFlags.switches).union(ProviderFlags.switches).union([
        "--fast", "--all", "--no-confirm",
    ])

    static func run(_ arguments: [String]) throws -> Int32 {
        let flags = try Flags(arguments, valued: valued, switches: switches)
        if flags.wantsHelp {
            print(usage)
            return 0
        }
        guard flags.positional.isEmpty else {
            throw UsageError("send takes no arguments, got \"\(flags.positional[0])\" (tokens go in --token)")
        }
        // Before the tokens are read (standard input may be slow): a signal from now on
        // stops the send instead of killing it.
        let interrupt = SendInterrupt()
        if flags.switches.contains("--http2") { return try runHTTP2(flags, interrupt: interrupt) }
        if let flag = ProviderFlags.http2Only(flags).first {
            throw UsageError("\(flag) is for the HTTP/2 provider API: add --http2")
        }
        var options = Connection.Options()
        try CredentialFlags(flags).apply(to: &options.access)
        ConnectFlags.apply(try ConnectFlags.settings(flags), to: &options)
        if let format = flags.value("--format") {
            let formats: [String: Command] = ["simple": .simple, "enhanced": .enhanced, "frame": .frame]
            guard let chosen = formats[format] else {
                throw UsageError("--format: \"\(format)\" is not one of simple, enhanced, frame")
            }
            options.format = chosen
        }
        options.fastMode = flags.switches.contains("--fast")
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
        let list = try TokenList(recipientsOf: flags, binary: true)
        do throws(APNError) {
            try note.validate(for: options.format, voip: options.voip)
        } catch {
            throw UsageError(error.message)
        }
        let sending = SendRun(
            options: options, notification: note, tokens: list, all: flags.switches.contains("--all"),
            confirm: !flags.switches.contains("--no-confirm"), interrupt: interrupt)
        return runBlocking { await sending.run() }
    }

    /// `apn send --http2`: the same recipients and payload through the provider API.
    private static func runHTTP2(_ flags: Flags, interrupt: SendInterrupt) throws -> Int32 {
        for binaryOnly in ["--format", "--fast", "--no-confirm"] where flags.values[binaryOnly] != nil || flags.switches.contains(binaryOnly) {
            throw UsageError("\(binaryOnly) is for the binary gateway, not --http2")
        }
        var options = try ProviderFlags.options(flags)
        ConnectFlags.apply(try ConnectFlags.settings(flags), to: &options)
        let note = try PayloadFlags.notification(flags)
        try ProviderFlags.applyHeaders(flags, to: note)
        guard [10, 5, 1].contains(note.priority) else {
            throw UsageError("--priority \(note.priority): the provider API takes 10, 5 or 1")
        }
        let list = try TokenList(recipientsOf: flags, binary: false)
        let sending = ProviderSendRun(
            options: options, notification: note, tokens: list, all: flags.switches.contains("--all"),
            interrupt: interrupt, store: try ProviderFlags.store(flags))
        return runBlocking { await sending.run() }
    }
}
