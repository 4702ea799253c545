import APNAdmin
import APN
import APNWire
import Dispatch
import Foundation
import APNMockGateway
import Synchronization

/// `apn mock-gateway …`: runs a ``MockGateway`` until SIGINT or SIGTERM.
enum MockGatewayCommand: Subcommand {
    static let name = "mock-gateway"
    static let summary = "run a mock binary gateway and feedback server until SIGINT/SIGTERM"
    static let flagGroups = [
        FlagGroup([
            .valued("--host", "ADDR", "address both listeners bind", default: "127.0.0.1"),
            .valued("--port", "N", "gateway port (0: the system chooses)", default: "0"),
            .valued("--feedback-port", "N", "feedback port", default: "0"),
            .valued(
                "--certs", "DIR",
                "use DIR/ca.pem, server.pem, server.key; if none exist, generate them there first (with ca.key, "
                    + "client.pem, client.key, client.p12). Without it a fresh set is generated in a new temporary "
                    + "directory."),
            .valued(
                "--record", "FILE",
                "append each accepted notification to FILE as a JSON line, in large writes; when 65,536 wait to be "
                    + "written, connections stop reading until they are (backpressure, not memory)"),
            .repeated("--reject", "TOKEN[:STATUS]", "refuse a token (hex) with STATUS (default 8); repeatable"),
            .repeated("--reject-id", "ID[:STATUS]", "refuse an identifier; repeatable"),
            .repeated("--reject-nth", "N[:STATUS]", "refuse the N-th notification overall; repeatable"),
            .valued("--shutdown-after", "N", "answer status 10 after the N-th accepted notification"),
            .valued("--drop-after", "N", "close silently after the N-th accepted notification"),
            .valued("--reset-after", "N", "close with a TCP reset after the N-th accepted notification"),
            .valued("--drop-every", "N", "close silently after every N-th accepted notification"),
            .valued("--reset-every", "N", "close with a TCP reset after every N-th accepted notification"),
            .valued(
                "--stall-after", "N[:MS]",
                "stop reading for MS milliseconds (default 1000) after the N-th accepted notification, so the "
                    + "client's writes block"),
            .valued(
                "--stall-then", "resume|close|reset|never",
                "how that stall ends: read on (default); close without an error response or reset, throwing away "
                    + "what was not read; or never (stalled until SIGINT or SIGTERM, MS ignored)"),
            .valued(
                "--error-delay-ms", "MS",
                "wait MS milliseconds before each error response, reading and discarding what arrives meanwhile"),
            .valued(
                "--error-lag", "N",
                "read and discard N more notifications before an error response (or until the client has sent "
                    + "nothing for 100 ms)"),
            .valued("--error-trickle-ms", "MS", "write each error response one byte per TLS record, MS ms apart"),
            .valued("--error-id", "ID", "send identifier ID (decimal or 0x hex) in every error response"),
            .valued(
                "--latency-ms", "MS",
                "one-way network latency on every connection: judge bytes MS ms after they arrive and answer MS ms "
                    + "after deciding, reading on meanwhile (holding up to 16 MiB)"),
            .valued(
                "--read-rate", "N",
                "process at most N notifications a second on each connection; beyond that stop reading, so the "
                    + "client's writes block"),
            .repeated("--feedback", "TOKEN:UNIXTIME", "queue a feedback tuple; repeatable"),
            .valued(
                "--feedback-file", "FILE",
                "queue tuples from FILE, one TOKEN:UNIXTIME (or TOKEN UNIXTIME) per line; blank lines and lines "
                    + "starting with # are skipped"),
            .valued("--feedback-write-size", "N", "write feedback tuples N bytes at a time (default: all at once)"),
            .valued("--feedback-pause-ms", "MS", "pause MS milliseconds between those writes (a slow service)"),
            .valued("--tls-min", "1.0|1.1|1.2|1.3", "oldest TLS version accepted", default: "1.2"),
            .toggle("--no-session-tickets", "do not issue TLS session tickets"),
            .toggle("--no-client-cert", "do not require a client certificate"),
            .valued(
                "--max-connections", "N",
                "serve at most N connections at once per listener; one beyond is closed at once and counted",
                default: "1024"),
            .valued(
                "--idle-timeout", "SECONDS", "close a connection that sends nothing for SECONDS (0: never)",
                default: "600"),
        ]),
        HTTP2MockFlags.group,
        AdminFlag.group,
        FlagGroup(
            "Configuration file:",
            [
                .valued(
                    "--config", "FILE",
                    "every flag from a JSON file, as \"flag_name\": value (an array where a flag repeats, true for "
                        + "a switch); a flag typed overrides it"),
            ]),
    ]
    static let epilogue: String? = """
        Prints {"gateway":"HOST:PORT","feedback":"HOST:PORT","certs":"DIR"} once started (with
        "admin":"HOST:PORT" too with --admin, whose /metrics has these counts as apn_mock_*), runs until
        SIGINT or SIGTERM, then stops reading, writes the rest of the record file, prints a JSON
        summary (its "accepted" is the record file's line count; "rejected" counts refusals by
        status, "markers" the confirmation markers answered apart from them) and exits 0. Bad
        options exit with status 2. The summary counts the connections refused over --max-connections
        ("refused_connections"), closed by --idle-timeout ("idle_timeouts"), whose TLS handshake
        failed ("handshake_failures") or that got no thread ("thread_start_failures"); its "http2"
        object counts the HTTP/2 gateway's under the same keys, and "alpn_refusals" (no h2).
        Meanwhile standard error gets at most one line a second per kind of refusal, counting those
        since the kind's previous line: {"time":…,"event":"connections_refused","kind":K,"count":N},
        K one of over_cap, idle_timeout, handshake_failure, thread_start_failure, alpn_refused.
        SIGHUP reads the command line and --config again: the new faults apply at once, to both
        gateways ({"event":"reloaded","needs_restart":[…]} names the other flags that changed), or
        {"event":"reload_refused","reason":"…"} and the faults in force stay.
        """

    /// What the flags asked for, checked.
    struct Options {
        var configuration = MockGateway.Configuration()
        var certificates: String?
        var record: String?
        var feedback: [(time: UInt32, token: [UInt8])] = []
        /// The HTTP/2 gateway's configuration, with `--http2`.
        var http2: HTTP2MockGateway.Configuration?
        /// `--admin`: where the admin listener binds, if anywhere.
        var admin: (host: String, port: UInt16)?
    }

    /// Runs the gateways until SIGINT or SIGTERM, in the steps of `MockGatewayRun.swift`.
    static let reloadsOnHangup = true

    static func run(_ flags: Flags) throws -> Int32 {
        // First: setting SIG_IGN would discard a SIGHUP already pending (HangupSignals).
        let hangups = HangupSignals()
        var options = try parse(flags)
        let (started, _) = try Flags.withConfigFile(flags, groups: flagGroups)
        let directory = try prepareCertificates(&options)
        let recordDescriptor = try openRecordFile(options.record)
        // Signals first, so one that arrives while starting is not fatal.
        let stopSignals = StopSignals()
        let gateways = try startGateways(options, recording: recordDescriptor != nil)
        hangups.handle { reload(flags, started: started, gateways: gateways) }
        let admin = try startAdmin(options.admin, gateways: gateways)
        let writers = startWriters(for: gateways, recordDescriptor: recordDescriptor)
        printStartLine(gateways, host: options.configuration.host, certificates: directory, admin: admin?.server.address)
        stopSignals.wait()
        hangups.end()
        admin?.endpoints.markStopping()
        stopAndReport(gateways, writers)
        admin?.server.stop()
        return 0
    }

    // MARK: Certificates

    /// Loads (or generates, then loads) the server credentials and CA of `--certs`, or
    /// generates a set in a new temporary directory. Returns the directory.
    private static func prepareCertificates(_ options: inout Options) throws -> String {
        let directory: String
        if let given = options.certificates {
            directory = given
        } else {
            directory = try TemporaryDirectory.make(prefix: "apn-mock-gateway")
        }
        let path = { (name: String) in PathText.join(directory, name) }
        let names = ["ca.pem", "server.pem", "server.key"]
        let present = names.filter { FileManager.default.fileExists(atPath: path($0)) }
        if present.isEmpty {
            do {
                _ = try CertificateFiles.generate(in: directory, topic: "com.example.app", p12Password: "")
            } catch let error as FileError {
                throw UsageError("--certs \(directory): cannot create the certificates there: \(error)")
            }
        } else if present.count != names.count {
            let missing = names.filter { !present.contains($0) }
            throw UsageError("--certs \(directory): has \(present.joined(separator: ", ")) but not \(missing.joined(separator: ", "))")
        }
        try CertificateFiles.configureServer(&options.configuration, from: directory)
        if var http2 = options.http2 {
            http2.serverCredentials = options.configuration.serverCredentials
            http2.clientCertificateAuthorities = options.configuration.clientCertificateAuthorities
            try HTTP2MockFlags.addCertificateDirectoryKey(&http2, from: directory)
            options.http2 = http2
        }
        return directory
    }
}

extension HTTP2MockFlags {
    /// The HTTP/2 gateway's part of the summary line.
    static func summary(_ summary: HTTP2MockGateway.Summary) -> JSONValue {
        .object([
            ("connections", .integer(summary.connections)),
            ("accepted", .integer(summary.accepted)),
            ("broadcasts", .integer(summary.broadcasts)),
            ("statuses", .object(summary.statuses.keys.sorted().map { (String($0), .integer(summary.statuses[$0]!)) })),
            ("reasons", .object(summary.reasons.keys.map(\.rawValue).sorted().map { name in
                (name, .integer(summary.reasons[ProviderReason(rawValue: name)]!))
            })),
            // The binary gateway's keys, with its meanings: "refused_connections" is over the cap.
            ("handshake_failures", .integer(summary.handshakeFailures)),
            ("alpn_refusals", .integer(summary.alpnRefusals)),
            ("refused_connections", .integer(summary.connectionsOverLimit)),
            ("thread_start_failures", .integer(summary.threadStartFailures)),
            ("idle_timeouts", .integer(summary.idleTimeouts)),
            ("protocol_errors", .integer(summary.protocolErrors)),
            ("rejected_streams", .integer(summary.rejectedStreams)),
            ("goaways", .integer(summary.goaways)),
            ("resets", .integer(summary.resets)),
            ("stalls", .integer(summary.stalls)),
            ("discarded_records", .integer(summary.discardedRecords)),
        ])
    }
}
