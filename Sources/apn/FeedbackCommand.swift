import APNSupport
import APN
import Dispatch
import Foundation
import Synchronization

/// `apn feedback …`: reads the feedback service once or every interval and prints one JSON
/// line per entry.
enum FeedbackCommand: Subcommand {
    static let name = "feedback"
    static let summary = "read the feedback service once or every interval, one JSON line per entry"
    static let flagGroups = [
        CredentialFlags.feedbackGroup,
        FlagGroup(
            "Polling:",
            [
                .valued("--interval", "SECONDS", "poll now, then every SECONDS until SIGINT/SIGTERM", default: "3600"),
                .toggle("--once", "poll once and exit (with nothing to read, says so on standard error)"),
            ]),
        LogFlags.group,
    ]
    static let epilogue: String? = """
        Prints one line per entry: {"time":UNIX,"date":"ISO-8601","token":"<hex>"}.
        Exits 0 after --once, or on SIGINT/SIGTERM; 1 when the service cannot be read; 2 on bad options.
        """

    static func run(_ flags: Flags) throws -> Int32 {
        let (options, once) = try parse(flags)
        if once {
            return readOnce(Feedback(options: options))
        }
        let stopSignals = StopSignals()
        // Polling starts when the poller is created: entries print from the `feedback`
        // option, and deliveries wait on a suspended queue until the listener and the
        // sequence are in place, so none of the first visit's events is missed.
        let callbacks = DispatchQueue(label: "apn.feedback.callbacks")
        callbacks.suspend()
        var polling = options
        polling.callbackQueue = callbacks
        polling.feedback = .batch { entries in
            for entry in entries { LineWriter.stdout(line(for: entry)) }
        }
        let feedback = Feedback(options: polling)
        // The sequence ends only after the last visit's entries were delivered: on
        // SIGINT/SIGTERM (status 0) or when polling stops on unusable credentials (status 1).
        // A first visit may fail before the sequence is made; it then ends on the callback
        // queue after the `.error` event, so the listener below has set the status by then.
        let entries = feedback.entries
        let status = StatusBox()
        feedback.on { event in
            switch event {
            case .feedback: break
            case .feedbackError(let error):
                LineWriter.stderr("apn feedback: \(ErrorText.message(error)) (trying again at the next interval)")
            case .error(let error):
                LineWriter.stderr("apn feedback: \(ErrorText.message(error))")
                status.value = 1
            }
        }
        callbacks.resume()
        CommandThread.start("apn-signals") {
            stopSignals.wait()
            feedback.cancel()
        }
        let finished = DispatchSemaphore(value: 0)
        Task {
            for await _ in entries {}
            finished.signal()
        }
        finished.wait()
        return status.value
    }

    private static func readOnce(_ feedback: Feedback) -> Int32 {
        let status = Handoff<Int32>()
        Task {
            do {
                let entries = try await feedback.read()
                for entry in entries { LineWriter.stdout(line(for: entry)) }
                // On standard error: standard output stays one line per entry for a pipe.
                if entries.isEmpty { LineWriter.stderr("apn feedback: nothing to read (the service had no tuples)") }
                status.put(0)
            } catch {
                LineWriter.stderr("apn feedback: \(ErrorText.of(error))")
                status.put(1)
            }
        }
        return status.take()
    }

    /// The exit status, set before the semaphore that ends the command is signalled.
    final class StatusBox: Sendable {
        private let stored = Lock<Int32>(0)
        var value: Int32 {
            get { stored.withLock { $0 } }
            set { stored.withLock { $0 = newValue } }
        }
    }

    /// ISO-8601 in UTC, e.g. `2023-11-14T22:13:20Z`, from `gmtime_r`: no formatter object
    /// per line, and no shared one to guard.
    static func isoDate(_ date: Date) -> String {
        UTCDateText.iso8601(seconds: Int(date.timeIntervalSince1970.rounded(.down)))
    }

    static func line(for entry: Feedback.Entry) -> JSONValue {
        .object([
            ("time", .integer(Int(entry.unixTime))),
            ("date", .string(isoDate(entry.time))),
            ("token", .string(entry.device.hexString)),
        ])
    }

    static func parse(_ flags: Flags) throws(UsageError) -> (Feedback.Options, once: Bool) {
        guard flags.positional.isEmpty else {
            throw UsageError("feedback takes no arguments, got \"\(flags.positional[0])\"")
        }
        var options = Feedback.Options()
        options.logHandler = try LogFlags.handler(flags)
        let credentials = try CredentialFlags(flags)
        credentials.apply(to: &options.access)
        let once = flags.has("--once")
        // --once reads with `read()`: the poller must not visit on its own as well.
        if once { options.interval = nil }
        if let interval = try flags.integer("--interval", as: Int.self, in: 1...86_400 * 7) {
            guard !once else { throw UsageError("--interval and --once exclude each other") }
            options.interval = .seconds(interval)
        }
        try credentials.requireCertificate()
        return (options, once)
    }
}
