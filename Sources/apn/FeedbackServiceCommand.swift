import APNSupport
import APN
import APNFeedbackService
import APNFeedbackStore
import Foundation

/// `apn feedback-service …`: polls the feedback service every interval and applies what it
/// reads to a token store, committing each batch before reading more.
enum FeedbackServiceCommand: Subcommand {
    static let name = "feedback-service"
    static let summary = "poll the feedback service and apply it to a token store"
    static let synopsis = "--store FILE [options]"
    static let flagGroups = [
        FlagGroup([
            .valued("--store", "FILE|URL", "the token store (SQLite, created when missing, or postgresql://), as `apn tokens --store`")
        ]),
        CredentialFlags.feedbackGroup,
        FlagGroup(
            "Polling:",
            [
                .valued("--interval", "SECONDS", "visit now, then every SECONDS until SIGINT/SIGTERM", default: "3600"),
                .toggle("--once", "visit once and exit"),
                .valued(
                    "--batch-size", "N",
                    "commit at most N tuples per transaction; a batch also ends with each read from the socket",
                    default: "1000"),
                .toggle("--log-batches", "also print a line after each batch is committed"),
                .valued(
                    "--min-free", "BYTES",
                    "room the store's disk must have before each visit (default 8 KiB per --batch-size tuple, from "
                        + "1 MiB to 64 MiB; 0: the write transaction only)"),
            ]),
        AdminFlag.group,
        FlagGroup(
            "Configuration file:",
            [
                .valued(
                    "--config", "FILE",
                    "every flag from a JSON file, as \"flag_name\": value (docs/BRIDGE.md, \"Operating the bridge\"); a "
                        + "flag typed overrides it; at SIGHUP it and the credentials are read again"),
                .toggle(
                    "--check-config",
                    "print the effective configuration (secrets shown by their source, never their value) and exit 0, "
                        + "or exit 2 naming what is wrong"),
            ]),
        LogFlags.group,
    ]
    static let epilogue: String? = """
        Each batch read is applied to the store in one transaction before the next read from the
        socket: a token is deactivated when the feedback time is at or after its last registration,
        kept when it was registered again later. One line per visit:
          {"event":"visit","time":UNIX,"date":"ISO-8601","read":N,"deactivated":N,"kept":N,
           "unknown":N,"duplicates":N,"seconds":"S.sss","stopped":false}
        A failed visit prints {"event":"visit_failed",…,"error":"…","retry_in":SECONDS} (what it read
        before failing is committed), waits (1 s, doubling up to the interval) and goes on.
        The feedback service serves each tuple once, so before each visit the store must take a
        write transaction and have --min-free bytes of room; if not, there is no visit: it prints
        {"event":"visit_skipped",…,"error":"…","retry_in":SECONDS}, says so on standard error (once,
        and again when the store recovers) and checks again after the same waits.
        If a commit fails all the same, the visit is read to its end and every tuple from the failed
        batch on is written to standard error and to STORE.feedback-recovery-TIME.jsonl as JSON lines
        {"event":"feedback","time":UNIX,"date":"ISO-8601","token":"<hex>"}; it prints
        {"event":"visit_failed",…,"not_committed":N,"recovery_file":"…"|null}, names the command
        that applies them (apn tokens import FILE --store STORE) and exits 1.
        With --log-batches, after each commit: {"event":"batch","read":N,"committed":TOTAL_THIS_VISIT}.
        SIGINT/SIGTERM stops reading, commits what was read, prints the visit's line and exits 0.
        SIGHUP reads the command line and --config again and checks the credentials: the next visit
        uses them ({"event":"reloaded","needs_restart":[…]}), or {"event":"reload_refused","reason":"…"}
        and the old ones stay.
        One service polls a store at a time. SQLite: it holds an exclusive lock on STORE.lock
        (flock(2), released by the kernel however the process ends); a second one exits 1 saying
        which process holds it. PostgreSQL: it holds the store's lease (a session advisory lock on
        a connection of its own); a second one waits as a hot standby, saying so once on standard
        error, tries every 2 s and polls once the holder's session ended (at once when it was
        killed; within 25 s of its host vanishing). A holder that finds its lease lost before a
        visit exits 1.
        With --admin, first prints {"event":"started","admin":"HOST:PORT"} once that listener is up
        (before the lock or lease is taken, so a standby answers too); its /metrics counts visits,
        failures and tuples (apn_feedback_*), says whether the lease is held
        (apn_feedback_lease_held, 0 on a standby) and when the push certificate expires.
        Exits 1 when the store cannot be opened or is polled by another service, the credentials are
        unusable, the --once visit failed or was skipped, or a commit failed; 2 on bad options.
        """

    /// What the flags asked for, checked.
    struct Settings {
        var store: String
        var feedback: Feedback.Options
        var interval: Duration?
        var batchSize: Int
        var logsBatches: Bool
        /// The room the store must have before each visit.
        var minimumFreeBytes: Int
        /// `--admin`: where the admin listener binds, if anywhere.
        var admin: (host: String, port: UInt16)?

        /// The service these settings describe, telling `events`.
        func configuration(events: @escaping @Sendable (FeedbackService.Event) -> Void) -> FeedbackService.Configuration {
            var configuration = FeedbackService.Configuration(store: store, feedback: feedback)
            configuration.interval = interval
            configuration.batchSize = batchSize
            configuration.minimumFreeBytes = minimumFreeBytes
            configuration.events = events
            return configuration
        }
    }

    static let reloadsOnHangup = true

    static func run(_ flags: Flags) throws -> Int32 {
        if flags.has("--check-config") { return try checkConfig(flags) }
        let settings = try parse(flags)
        // First, before anyone can think the service is up: setting SIG_IGN would discard a
        // SIGHUP already pending.
        let hangups = HangupSignals()
        defer { hangups.end() }
        // Counted from the start, served before the lock is taken: a standby is seen as one.
        let metrics = FeedbackServiceMetrics(leaseHeld: !TokenStore.isPostgreSQL(settings.store))
        let output = FeedbackServiceOutput(settings: settings, metrics: metrics)
        let service: FeedbackService
        do throws(APNError) {
            service = try FeedbackService(configuration: settings.configuration(events: output.handle))
        } catch {
            LineWriter.stderr("apn feedback-service: \(error.message)")
            return 1
        }
        let reload = FeedbackServiceReload(settings, service: service)
        hangups.handle { reload.reload(flags) }
        // Signals are caught before the store is opened, so a stop during start-up is seen.
        let signals = StopSignals()
        CommandThread.start("apn-signals") {
            signals.wait()
            service.stop()
        }
        let admin = try FeedbackServiceAdmin.start(settings, metrics: metrics, service: service) { reload.certificates }
        defer { admin?.stop() }
        let expiry = CertificateExpiryWatch { reload.certificates }
        expiry.start()
        defer { expiry.stop() }
        return FeedbackServiceOutput.exitStatus(service.run())
    }

    /// `--check-config`: the settings read and the credentials loaded as a visit would,
    /// then the effective configuration as one line (``ConfigShow``); a usage error (exit 2)
    /// naming what is wrong otherwise.
    static func checkConfig(_ typed: Flags) throws(UsageError) -> Int32 {
        let settings = try parse(typed)
        do {
            try Feedback.checkCredentials(settings.feedback)
        } catch {
            throw UsageError(ErrorText.of(error))
        }
        let (flags, file) = try Flags.withConfigFile(typed, groups: flagGroups, excluded: ["--check-config"])
        LineWriter.stdout(.object(ConfigShow.members(flagGroups, flags: flags, file: file)))
        return 0
    }

    static func parse(_ typed: Flags) throws(UsageError) -> Settings {
        let (flags, _) = try Flags.withConfigFile(typed, groups: flagGroups, excluded: ["--check-config"])
        guard flags.positional.isEmpty else {
            throw UsageError("feedback-service takes no arguments, got \"\(flags.positional[0])\"")
        }
        guard let store = flags.value("--store"), !store.isEmpty else { throw UsageError("--store FILE is required") }
        var options = Feedback.Options()
        options.logHandler = try LogFlags.handler(flags)
        let credentials = try CredentialFlags(flags)
        credentials.apply(to: &options.access)
        let once = flags.has("--once")
        var interval: Duration? = .seconds(3600)
        if let seconds = try flags.integer("--interval", as: Int.self, in: 1...86_400 * 7) {
            guard !once else { throw UsageError("--interval and --once exclude each other") }
            interval = .seconds(seconds)
        }
        if once { interval = nil }
        let batchSize = try flags.integer("--batch-size", in: 1...1_000_000) ?? 1000
        let room = try flags.integer("--min-free", in: 0...(1 << 40))
            ?? FeedbackService.Configuration.defaultMinimumFreeBytes(batchSize: batchSize)
        try credentials.requireCertificate()
        return Settings(
            store: store, feedback: options, interval: interval, batchSize: batchSize,
            logsBatches: flags.has("--log-batches"), minimumFreeBytes: room, admin: try AdminFlag.parse(flags))
    }
}
