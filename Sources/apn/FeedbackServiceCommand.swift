import APN
import APNFeedbackStore
import Foundation

/// `apn feedback-service …`: polls the feedback service every interval and applies what it
/// reads to a token store, committing each batch before reading more.
enum FeedbackServiceCommand {
    static let usage = """
        usage: apn feedback-service --store FILE [options]
          --store FILE              the token store (SQLite; created when missing), as `apn tokens --store`
        \(CredentialFlags.feedbackUsage)
          --interval SECONDS        visit now, then every SECONDS until SIGINT/SIGTERM (default 3600)
          --once                    visit once and exit
          --batch-size N            commit at most N tuples per transaction (default 1000); a batch
                                    also ends with each read from the socket
          --log-batches             also print a line after each batch is committed
        Each batch read is applied to the store in one transaction before the next read from the
        socket: a token is deactivated when the feedback time is at or after its last registration,
        kept when it was registered again later. One line per visit:
          {"event":"visit","time":UNIX,"date":"ISO-8601","read":N,"deactivated":N,"kept":N,
           "unknown":N,"duplicates":N,"seconds":"S.sss","stopped":false}
        A failed visit prints {"event":"visit_failed",…,"error":"…","retry_in":SECONDS} (what it read
        before failing is committed), waits (1 s, doubling up to the interval) and goes on.
        With --log-batches, after each commit: {"event":"batch","read":N,"committed":TOTAL_THIS_VISIT}.
        SIGINT/SIGTERM stops reading, commits what was read, prints the visit's line and exits 0.
        Exits 1 when the store cannot be opened, the credentials are unusable, or the --once visit
        failed; 2 on bad options.
        """

    private static let valued = CredentialFlags.valued.union(["--store", "--interval", "--batch-size"])
    private static let switches = CredentialFlags.switches.union(["--once", "--log-batches"])

    /// What the flags asked for, checked.
    struct Settings {
        var store: String
        var feedback: Feedback.Options
        var interval: Duration?
        var batchSize: Int
        var logsBatches: Bool
    }

    static func run(_ arguments: [String]) throws -> Int32 {
        let flags = try Flags(arguments, valued: valued, switches: switches)
        if flags.wantsHelp {
            print(usage)
            return 0
        }
        let settings = try parse(flags)
        // Signals are caught before the store is opened, so a stop during start-up is seen.
        let stop: StopRequest
        do throws(APNError) {
            stop = try StopRequest()
        } catch {
            LineWriter.stderr("apn feedback-service: \(error.message)")
            return 1
        }
        let signals = StopSignals()
        Thread.detachNewThread {
            signals.wait()
            stop.request()
        }
        let store: TokenStore
        do throws(StoreError) {
            store = try TokenStore(path: settings.store)
        } catch {
            LineWriter.stderr("apn feedback-service: \(error)")
            return 1
        }
        return FeedbackService(settings: settings, store: store, stop: stop).run()
    }

    static func parse(_ flags: Flags) throws(UsageError) -> Settings {
        guard flags.positional.isEmpty else {
            throw UsageError("feedback-service takes no arguments, got \"\(flags.positional[0])\"")
        }
        guard let store = flags.value("--store"), !store.isEmpty else { throw UsageError("--store FILE is required") }
        var options = Feedback.Options()
        try CredentialFlags(flags).apply(to: &options.access)
        // The service schedules its own visits (Feedback.visit): the poller must not.
        options.interval = nil
        let once = flags.switches.contains("--once")
        var interval: Duration? = .seconds(3600)
        if let seconds = try flags.integer("--interval", as: Int.self, in: 1...86_400 * 7) {
            guard !once else { throw UsageError("--interval and --once exclude each other") }
            interval = .seconds(seconds)
        }
        if once { interval = nil }
        return Settings(
            store: store, feedback: options, interval: interval,
            batchSize: try flags.integer("--batch-size", in: 1...1_000_000) ?? 1000,
            logsBatches: flags.switches.contains("--log-batches"))
    }
}
