import APNSupport
import APN
import APNWire
import Foundation
import APNMockGateway
import Synchronization

/// One run of `apn demo`: the gateway is started by `init`, ``run()`` tells the story.
struct DemoRun: Sendable {
    let plan: DemoPlan
    let directory: String
    let printer: StepPrinter
    let gateway: MockGateway
    private let started = ContinuousClock.now

    /// Generates the certificates and starts the gateway with the plan's faults.
    init(plan: DemoPlan, directory: String, printer: StepPrinter) throws {
        self.plan = plan
        self.directory = directory
        self.printer = printer
        _ = try CertificateFiles.generate(in: directory, topic: "com.example.demo", p12Password: "")
        printer.step(
            "certs", "Certificates: a CA, a server and a push client certificate, generated into \(directory)",
            [("dir", .string(directory))])

        var configuration = MockGateway.Configuration()
        // The check reads every record: `--count` may be above the default retention.
        configuration.recordRetention = .unlimited
        try CertificateFiles.configureServer(&configuration, from: directory)
        var faults = MockGateway.Faults()
        faults.rejectToken(plan.tokens[plan.rejectedIndex])
        faults.shutdownAfter = plan.shutdownAfter
        faults.closeAfter = plan.dropAfter
        configuration.faults = faults
        gateway = try MockGateway(configuration: configuration)
        for tuple in plan.feedback {
            try gateway.queueFeedback(time: tuple.time, token: tuple.token)
        }
        try gateway.start()
        printer.step(
            "gateway",
            """
            MockGateway on 127.0.0.1:\(gateway.gatewayPort), feedback on 127.0.0.1:\(gateway.feedbackPort). It will refuse \
            the token of notification \(plan.rejectedIndex + 1) (status 8), answer status 10 (shutdown) after \
            \(plan.shutdownAfter) accepted notifications, and close a connection silently after \(plan.dropAfter); \
            \(plan.feedback.count) feedback tuples are queued.
            """,
            [
                ("gateway", .string("127.0.0.1:\(gateway.gatewayPort)")),
                ("feedback", .string("127.0.0.1:\(gateway.feedbackPort)")),
                ("reject_token", .string(hexString(plan.tokens[plan.rejectedIndex]))),
                ("shutdown_after", .integer(plan.shutdownAfter)),
                ("drop_after", .integer(plan.dropAfter)),
                ("feedback_tuples", .integer(plan.feedback.count)),
            ])
    }

    private func path(_ name: String) -> CredentialSource {
        .file(PathText.join(directory, name))
    }

    /// Sends, reports, checks and reads the feedback; the exit status.
    func run() async -> Int32 {
        let (outcomes, report) = await send()
        let check = DemoCheck(plan: plan, outcomes: outcomes, records: gateway.records)
        printCheck(check)
        let feedbackMatches = await readFeedback()
        let seconds = Double((ContinuousClock.now - started) / .milliseconds(1)) / 1000
        let ok = check.holds && feedbackMatches && report.total == plan.count
        printer.step(
            "done",
            ok
                ? "Done in \(String(format: "%.1f", seconds)) s: every outcome agrees with the gateway's record."
                : "Done in \(String(format: "%.1f", seconds)) s: the check FAILED.",
            [("ok", .bool(ok)), ("seconds", .string(String(format: "%.3f", seconds)))])
        return ok ? 0 : 1
    }

    // MARK: Sending

    private func send() async -> ([NotificationOutcome?], DeliveryReport) {
        let printer = printer
        var options = Connection.Options()
        options.cert = path("client.pem")
        options.key = path("client.key")
        options.ca = [path("ca.pem")]
        options.address = "127.0.0.1"
        options.port = gateway.gatewayPort
        options.errorCallback = { code, _, device in
            printer.step(
                "errorCallback", "  errorCallback(\(code), \(device.map { hexString($0.token) } ?? "nil"))",
                [("code", .string("\(code)")), ("token", device.map { .string($0.hexString) } ?? .null)])
        }
        let connection = Connection(options: options)
        let progress = ProgressLine(total: plan.count)
        let quiet = Lock((transmitted: 0, completed: 0))
        connection.on { event in
            switch event {
            case .transmitted:
                quiet.withLock { $0.transmitted += 1 }
                progress.update { $0.sent += 1 }
            case .completed:
                quiet.withLock { $0.completed += 1 }
            default:
                printer.step("event", "  event: \(event)", [("event", .string("\(event)"))])
            }
        }
        printer.step(
            "send", "Sending \(plan.count) notifications with a default Connection (one socket, command 2)…",
            [("count", .integer(plan.count))])

        let outcomes = Lock([NotificationOutcome?](repeating: nil, count: plan.count))
        let devices = plan.tokens.map { try! Device(token: $0) }  // 32 bytes each, by construction
        let note = Notification().setAlertText("Hello from swift-apn's demo").setBadge(1)
        connection.push(note, to: devices) { index, outcome in
            outcomes.withLock { $0[index] = outcome }
            progress.update { outcome.isAccepted ? ($0.accepted += 1) : ($0.notAccepted += 1) }
        }
        var report = await connection.flush()
        report.add(await connection.shutdown())
        progress.finish()
        let counts = quiet.withLock { $0 }
        printer.step(
            "events", "  (and \(counts.transmitted) transmitted events, \(counts.completed) completed events)",
            [("transmitted", .integer(counts.transmitted)), ("completed", .integer(counts.completed))])
        printReport(report)
        return (outcomes.withLock { $0 }, report)
    }

    private func printReport(_ report: DeliveryReport) {
        printer.step(
            "report",
            """
            Delivery report: accepted \(report.accepted) (\(report.possiblyDuplicated) possibly duplicated), rejected \
            \(report.rejected), failed \(report.failed), unknown fate \(report.unknownFate), resent \(report.resent)\
            \(report.confirmed ? ", confirmed by the gateway" : "")
            """,
            [
                ("accepted", .integer(report.accepted)), ("possibly_duplicated", .integer(report.possiblyDuplicated)),
                ("rejected", .integer(report.rejected)), ("failed", .integer(report.failed)),
                ("unknown_fate", .integer(report.unknownFate)), ("resent", .integer(report.resent)),
                ("confirmed", .bool(report.confirmed)),
            ])
        for undelivered in report.notAccepted {
            let token = undelivered.device?.hexString
            printer.step(
                "not_accepted", "  not accepted: \(token ?? "no device") — \(undelivered.outcome)",
                [("token", token.map { .string($0) } ?? .null), ("outcome", .string("\(undelivered.outcome)"))])
        }
    }

    private func printCheck(_ check: DemoCheck) {
        for line in check.explanations {
            printer.step("unknown_fate", "  \(line)", [("explanation", .string(line))])
        }
        for problem in check.problems.prefix(20) {
            printer.step("problem", "  PROBLEM: \(problem)", [("problem", .string(problem))])
        }
        printer.step(
            "check",
            check.holds
                ? """
                Check: the gateway recorded \(gateway.recordCount) notifications (\(check.duplicatesRecorded) twice, \
                resent after a silent close); each accepted one is among them, the rejected one is not.
                """
                : "Check FAILED: \(check.problems.count) disagreements with the gateway's record.",
            [
                ("holds", .bool(check.holds)), ("recorded", .integer(gateway.recordCount)),
                ("recorded_twice", .integer(check.duplicatesRecorded)), ("problems", .integer(check.problems.count)),
            ])
    }

    // MARK: Feedback

    /// Reads the feedback service once; whether it gave back exactly the queued tuples.
    private func readFeedback() async -> Bool {
        var options = Feedback.Options()
        options.cert = path("client.pem")
        options.key = path("client.key")
        options.ca = [path("ca.pem")]
        options.address = "127.0.0.1"
        options.port = gateway.feedbackPort
        options.interval = nil  // no polling: one explicit read
        let entries: [Feedback.Entry]
        do {
            entries = try await Feedback(options: options).read()
        } catch {
            printer.step("feedback_error", "Feedback: \(error)", [("error", .string("\(error)"))])
            return false
        }
        printer.step(
            "feedback", "Feedback service: \(entries.count) entries", [("entries", .integer(entries.count))])
        for entry in entries {
            printer.step(
                "feedback_entry", "  \(FeedbackCommand.isoDate(entry.time))  \(entry.device.hexString)",
                [("time", .integer(Int(entry.unixTime))), ("token", .string(entry.device.hexString))])
        }
        let expected = plan.feedback.map { "\($0.time) \(hexString($0.token))" }
        return entries.map { "\($0.unixTime) \($0.device.hexString)" } == expected
    }
}
