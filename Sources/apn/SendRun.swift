import APN
import Foundation
import Synchronization

/// One `apn send`: pushes, waits for the outcomes, prints them and the summary. SIGINT or
/// SIGTERM stops it early (``SendInterrupt``).
struct SendRun: Sendable {
    let options: Connection.Options
    let job: SendJob
    /// Unless `--no-confirm`: end with a confirmed flush.
    let confirm: Bool

    init(options: Connection.Options, job: SendJob, confirm: Bool) {
        self.options = options
        self.job = job
        self.confirm = confirm
    }

    /// The exit status: 0 when every notification was accepted, 1 otherwise, 2 when the
    /// tokens file could not be read to its end (read while sending: those before were
    /// sent), 130 when interrupted.
    func run() async -> Int32 {
        let recipients = job.recipients
        // The bad lines first; those of a file still being read once it was (``printBadLines``).
        if recipients.wasCompleteAtStart { printBadLines(recipients.complete) }
        let started = ContinuousClock.now
        let connection = Connection(options: options)
        let known = recipients.wasCompleteAtStart ? recipients.complete.devices.count : nil
        let progress = ProgressLine(total: known)
        if known == nil, progress.isActive {
            Task { progress.setTotal(await recipients.finished().devices.count) }
        }
        let book = OutcomeBook(count: known ?? SendFeed.chunkSize, keepsAll: job.all)
        // The progress line's counts only when it is drawn (a terminal): a second lock per
        // notification otherwise, for nothing.
        let drawsProgress = progress.isActive
        let feed = SendFeed(connection: connection, notification: job.notification, recipients: recipients) { index, outcome in
            book.record(index, outcome)
            guard drawsProgress else { return }
            progress.update {
                $0.sent += 1
                outcome.isAccepted ? ($0.accepted += 1) : ($0.notAccepted += 1)
            }
        }
        // Without `transmitted`: a listener for those would cost an event per notification.
        let host = options.host
        let port = options.port
        connection.on(includingTransmitted: false) { event in
            switch event {
            case .completed: feed.pushNext()
            case .error: feed.pushRest()
            case .connectAttemptFailed(let error, let next):
                LineWriter.stderr(ConnectFlags.attemptLine(host: host, port: port, reason: error.message, nextAttemptIn: next))
            default: break
            }
        }
        feed.pushNext()

        let confirming = confirm && options.format != .simple
        let sending = Task { () -> DeliveryReport? in
            await feed.fed.wait()
            var report = DeliveryReport()
            if confirming { report = await connection.flush(confirm: true) }
            report.add(await connection.shutdown())
            // A report cut short by the stop is not the whole story: the book is.
            return Task.isCancelled ? nil : report
        }
        let stopper = job.interrupt.cancel(sending)
        let finished = await sending.value
        stopper.cancel()
        guard let report = finished else {
            return await interrupted(connection, feed: feed, book: book, progress: progress, started: started)
        }
        progress.finish()
        let seconds = Self.seconds(since: started)
        // Read to its end: every device was handed over.
        let read = await recipients.finished()
        if !recipients.wasCompleteAtStart { printBadLines(read) }
        if job.all {
            // After shutdown every notification has its outcome (the report says so).
            for (index, outcome) in (book.snapshot().all ?? []).prefix(read.devices.count).enumerated() {
                LineWriter.stdout(line(read.devices[index], outcome ?? .unknownFate(.cancelled)))
            }
        } else {
            for undelivered in report.notAccepted {
                LineWriter.stdout(line(undelivered.device, undelivered.outcome))
            }
        }
        if let ended = report.notAccepted.lazy.compactMap({ Self.terminating($0.outcome) }).first {
            LineWriter.stderr("apn send: \(ErrorText.message(ended))")
        }
        LineWriter.stdout(
            summary(
                Self.counts(report), read: read, possiblyDuplicated: report.possiblyDuplicated, resent: report.resent,
                confirmed: report.confirmed, seconds: seconds, interrupted: job.interrupt.isRequested))
        if job.interrupt.isRequested { return 130 }
        if read.failure != nil { return 2 }
        return report.accepted == read.devices.count && read.bad.isEmpty ? 0 : 1
    }

    /// The tokens file's bad lines, and why it could not be read to its end (a file read
    /// while the send began; the devices before were sent).
    private func printBadLines(_ read: RecipientSupply.Finished) {
        for bad in read.bad { LineWriter.stdout(bad.report) }
        if let failure = read.failure { LineWriter.stderr("apn send: \(failure.message)") }
    }

    /// After a stop: hands nothing more over, waits up to ``SendInterrupt/drainWindow`` for
    /// the outcomes of what was (a confirmed flush settles them sooner), then prints a line
    /// for each notification not accepted — `not_sent` for those never handed over,
    /// unknown fate (`cancelled`) for those still without an outcome — and the summary.
    private func interrupted(
        _ connection: Connection, feed: SendFeed, book: OutcomeBook, progress: ProgressLine, started: ContinuousClock.Instant
    ) async -> Int32 {
        let handedOver = feed.stop()
        let confirming = options.format != .simple
        let drain = Task { await connection.flush(confirm: confirming) }
        let deadline = Task {
            try? await Task.sleep(for: SendInterrupt.drainWindow)
            drain.cancel()
        }
        let drained = await drain.value
        deadline.cancel()
        progress.finish()
        let seconds = Self.seconds(since: started)
        // The reading goes on to the end (a second or so for millions): every line is printed.
        let read = await job.recipients.finished()
        if !job.recipients.wasCompleteAtStart { printBadLines(read) }
        let state = book.snapshot()
        var counts = SendOutput.Counts()
        counts.accepted = state.accepted
        for (index, device) in read.devices.enumerated() {
            guard index < handedOver else {
                counts.count(.notSent)
                LineWriter.stdout(SendOutput.notSentLine(device))
                continue
            }
            let settled = index < state.settled.count && state.settled[index]
            let outcome = settled ? (state.all?[index] ?? state.notAccepted[index]) : .unknownFate(.cancelled)
            guard let outcome else { continue }  // accepted, without --all
            if !outcome.isAccepted { counts.count(Self.kind(outcome)) }
            if job.all || !outcome.isAccepted { LineWriter.stdout(line(device, outcome)) }
        }
        LineWriter.stdout(
            summary(
                counts, read: read, possiblyDuplicated: state.possiblyDuplicated, resent: drained.resent, confirmed: false,
                seconds: seconds, interrupted: true))
        return 130
    }

    /// The error that ended the connection (credentials, the connection retry limit), if
    /// this outcome carries one.
    private static func terminating(_ outcome: NotificationOutcome) -> APNError? {
        guard case .failed(let error) = outcome,
              [.initialisationFailed, .connectionRetryLimitExceeded, .connectionTerminated].contains(error.code)
        else { return nil }
        return error
    }

    private static func seconds(since started: ContinuousClock.Instant) -> Double {
        Double((ContinuousClock.now - started) / .microseconds(1)) / 1_000_000
    }

    /// A notification's line (``SendOutput``): binary extras `possibly_duplicated` (accepted),
    /// `status` (rejected: the error response's status code), `error` (failed, unknown fate:
    /// the library's code or the unknown fate's reason, snake_case).
    private func line(_ device: Device?, _ outcome: NotificationOutcome) -> JSONValue {
        let extra: [(String, JSONValue)] = switch outcome {
        case .accepted(let acceptance): [("possibly_duplicated", .bool(acceptance.possiblyDuplicated))]
        case .rejected(let status): [("status", .integer(Int(status.rawValue)))]
        case .failed(let error): [("error", .string(SendOutput.snakeCase(error.code.description)))]
        case .unknownFate(let reason): [("error", .string(Self.name(of: reason)))]
        }
        return SendOutput.line(token: device, Self.kind(outcome), description: Self.describe(outcome), extra: extra)
    }

    /// The line's sentence: the outcome as the library says it, a failure's error in its
    /// words (its code is the line's `error`).
    static func describe(_ outcome: NotificationOutcome) -> String {
        guard case .failed(let error) = outcome else { return "\(outcome)" }
        return "failed: \(ErrorText.message(error))"
    }

    /// The output's outcome for the library's.
    static func kind(_ outcome: NotificationOutcome) -> SendOutput.Outcome {
        switch outcome {
        case .accepted: .accepted
        case .rejected: .rejected
        case .failed: .failed
        case .unknownFate: .unknownFate
        }
    }

    /// The reason's case name, snake_case.
    private static func name(of reason: UnknownFateReason) -> String {
        switch reason {
        case .evictedFromCache: "evicted_from_cache"
        case .unconfirmedAtClose: "unconfirmed_at_close"
        case .unattributedError: "unattributed_error"
        case .cancelled: "cancelled"
        }
    }

    private static func counts(_ report: DeliveryReport) -> SendOutput.Counts {
        var counts = SendOutput.Counts()
        counts.accepted = report.accepted
        counts.rejected = report.rejected
        counts.failed = report.failed
        counts.unknownFate = report.unknownFate
        return counts
    }

    /// The summary (``SendOutput``), with the binary extras `possibly_duplicated` (accepted
    /// after a resend that may have doubled them), `resent` and `confirmed`.
    private func summary(
        _ counts: SendOutput.Counts, read: RecipientSupply.Finished, possiblyDuplicated: Int, resent: Int, confirmed: Bool,
        seconds: Double, interrupted: Bool
    ) -> JSONValue {
        SendOutput.summary(
            protocol: "binary", total: read.devices.count, counts, invalidTokens: read.bad.count, interrupted: interrupted,
            seconds: seconds,
            extra: [
                ("possibly_duplicated", .integer(possiblyDuplicated)), ("resent", .integer(resent)),
                ("confirmed", .bool(confirmed)),
            ])
    }
}
