import APN
import APNTLS
import Foundation
import Synchronization

/// One `apn send`: pushes, waits for the outcomes, prints them and the summary. SIGINT or
/// SIGTERM stops it early (``SendInterrupt``).
struct SendRun: Sendable {
    let options: Connection.Options
    let notification: APN.Notification
    let devices: [Device]
    let badLines: [TokenList.BadLine]
    let all: Bool
    let confirm: Bool
    let interrupt: SendInterrupt

    init(
        options: Connection.Options, notification: APN.Notification, tokens: TokenList, all: Bool, confirm: Bool,
        interrupt: SendInterrupt
    ) {
        self.interrupt = interrupt
        self.options = options
        self.notification = notification
        self.devices = tokens.devices
        self.badLines = tokens.bad
        self.all = all
        self.confirm = confirm
    }

    /// The exit status: 0 when every notification was accepted, 1 otherwise, 130 when
    /// interrupted.
    func run() async -> Int32 {
        for bad in badLines { LineWriter.stdout(bad.report) }
        let started = ContinuousClock.now
        let connection = Connection(options: options)
        let progress = ProgressLine(total: devices.count)
        let book = OutcomeBook(count: devices.count, keepsAll: all)
        // The progress line's counts only when it is drawn (a terminal): a second lock per
        // notification otherwise, for nothing.
        let drawsProgress = progress.isActive
        let feed = SendFeed(connection: connection, notification: notification, devices: devices) { index, outcome in
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
        let stopper = interrupt.cancel(sending)
        let finished = await sending.value
        stopper.cancel()
        guard let report = finished else {
            return await interrupted(connection, feed: feed, book: book, progress: progress, started: started)
        }
        progress.finish()
        let seconds = Self.seconds(since: started)
        if all {
            for (index, outcome) in (book.snapshot().all ?? []).enumerated() {
                LineWriter.stdout(line(devices[index], outcome))
            }
        } else {
            for undelivered in report.notAccepted {
                LineWriter.stdout(line(undelivered.device, undelivered.outcome))
            }
        }
        if let ended = report.notAccepted.lazy.compactMap({ Self.terminating($0.outcome) }).first {
            LineWriter.stderr("apn send: \(ended)")
        }
        LineWriter.stdout(
            summary(
                Counts(report), resent: report.resent, confirmed: report.confirmed, seconds: seconds,
                interrupted: interrupt.isRequested))
        if interrupt.isRequested { return 130 }
        return report.accepted == devices.count && badLines.isEmpty ? 0 : 1
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
        let state = book.snapshot()
        var counts = Counts()
        counts.accepted = state.accepted
        counts.possiblyDuplicated = state.possiblyDuplicated
        counts.notSent = devices.count - handedOver
        for (index, device) in devices.enumerated() {
            guard index < handedOver else {
                LineWriter.stdout(Self.notSentLine(device))
                continue
            }
            let outcome = state.settled[index] ? (state.all?[index] ?? state.notAccepted[index]) : .unknownFate(.cancelled)
            guard let outcome else { continue }  // accepted, without --all
            counts.count(outcome)
            if all || !outcome.isAccepted { LineWriter.stdout(line(device, outcome)) }
        }
        LineWriter.stdout(
            summary(counts, resent: drained.resent, confirmed: false, seconds: seconds, interrupted: true))
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

    /// The line of a notification an interrupted send never handed to the connection.
    static func notSentLine(_ device: Device) -> JSONValue {
        .object([
            ("token", .string(device.hexString)), ("outcome", .string("not_sent")),
            ("description", .string("not sent: apn send was interrupted first")),
        ])
    }

    private func line(_ device: Device?, _ outcome: NotificationOutcome?) -> JSONValue {
        var members: [(String, JSONValue)] = [("token", device.map { .string($0.hexString) } ?? .null)]
        switch outcome {
        case .accepted(let acceptance)?:
            members.append(("outcome", .string("accepted")))
            members.append(("possibly_duplicated", .bool(acceptance.possiblyDuplicated)))
        case .rejected(let status)?:
            members.append(("outcome", .string("rejected")))
            members.append(("status", .integer(Int(status.rawValue))))
        case .failed(let error)?:
            members.append(("outcome", .string("failed")))
            members.append(("error", .string("\(error)")))
        case .unknownFate(let reason)?:
            members.append(("outcome", .string("unknown fate")))
            members.append(("reason", .string("\(reason)")))
        case nil:
            members.append(("outcome", .null))
        }
        if let outcome { members.append(("description", .string("\(outcome)"))) }
        return .object(members)
    }

    /// The summary's counts.
    struct Counts {
        var accepted = 0
        var possiblyDuplicated = 0
        var rejected = 0
        var failed = 0
        var unknownFate = 0
        var notSent = 0

        init() {}

        init(_ report: DeliveryReport) {
            accepted = report.accepted
            possiblyDuplicated = report.possiblyDuplicated
            rejected = report.rejected
            failed = report.failed
            unknownFate = report.unknownFate
        }

        /// Counts one outcome other than accepted.
        mutating func count(_ outcome: NotificationOutcome) {
            switch outcome {
            case .accepted: break
            case .rejected: rejected += 1
            case .failed: failed += 1
            case .unknownFate: unknownFate += 1
            }
        }
    }

    private func summary(_ counts: Counts, resent: Int, confirmed: Bool, seconds: Double, interrupted: Bool) -> JSONValue {
        .object([
            ("sent", .integer(devices.count)),
            ("accepted", .integer(counts.accepted)),
            ("possibly_duplicated", .integer(counts.possiblyDuplicated)),
            ("rejected", .integer(counts.rejected)),
            ("failed", .integer(counts.failed)),
            ("unknown_fate", .integer(counts.unknownFate)),
            ("not_sent", .integer(counts.notSent)),
            ("invalid_tokens", .integer(badLines.count)),
            ("resent", .integer(resent)),
            ("confirmed", .bool(confirmed)),
            ("interrupted", .bool(interrupted)),
            ("seconds", .string(String(format: "%.3f", seconds))),
            ("per_second", .integer(seconds > 0 ? Int(Double(devices.count) / seconds) : 0)),
        ])
    }
}
