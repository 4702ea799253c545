import APN
import APNTLS
import Foundation
import Synchronization

/// One `apn send`: pushes, waits for the outcomes, prints them and the summary.
struct SendRun: Sendable {
    let options: Connection.Options
    let notification: APN.Notification
    let devices: [Device]
    let badLines: [TokenList.BadLine]
    let all: Bool
    let confirm: Bool

    init(options: Connection.Options, notification: APN.Notification, tokens: TokenList, all: Bool, confirm: Bool) {
        self.options = options
        self.notification = notification
        self.devices = tokens.devices
        self.badLines = tokens.bad
        self.all = all
        self.confirm = confirm
    }

    /// The exit status: 0 when every notification was accepted, 1 otherwise.
    func run() async -> Int32 {
        for bad in badLines { LineWriter.stdout(bad.report) }
        let started = ContinuousClock.now
        // No event listener: one would turn on a `transmitted` event per notification. What
        // ended the connection is in the outcomes, and said once on standard error below.
        let connection = Connection(options: options)
        let progress = ProgressLine(total: devices.count)
        let outcomes = Lock([NotificationOutcome?](repeating: nil, count: all ? devices.count : 0))
        if !devices.isEmpty {
            if all || progress.isActive {
                let all = all
                connection.push(notification, to: devices) { index, outcome in
                    if all { outcomes.withLock { $0[index] = outcome } }
                    progress.update {
                        $0.sent += 1
                        outcome.isAccepted ? ($0.accepted += 1) : ($0.notAccepted += 1)
                    }
                }
            } else {
                connection.push(notification, to: devices)
            }
        }
        var report = DeliveryReport()
        if confirm && options.format != .simple {
            report = await connection.flush(confirm: true)
        }
        report.add(await connection.shutdown())
        progress.finish()
        let seconds = Double((ContinuousClock.now - started) / .microseconds(1)) / 1_000_000

        if all {
            for (index, outcome) in outcomes.withLock({ $0 }).enumerated() {
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
        LineWriter.stdout(summary(report, seconds: seconds))
        return report.accepted == devices.count && badLines.isEmpty ? 0 : 1
    }

    /// The error that ended the connection (credentials, the connection retry limit), if
    /// this outcome carries one.
    private static func terminating(_ outcome: NotificationOutcome) -> APNError? {
        guard case .failed(let error) = outcome,
              [.initialisationFailed, .connectionRetryLimitExceeded, .connectionTerminated].contains(error.code)
        else { return nil }
        return error
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

    private func summary(_ report: DeliveryReport, seconds: Double) -> JSONValue {
        .object([
            ("sent", .integer(devices.count)),
            ("accepted", .integer(report.accepted)),
            ("possibly_duplicated", .integer(report.possiblyDuplicated)),
            ("rejected", .integer(report.rejected)),
            ("failed", .integer(report.failed)),
            ("unknown_fate", .integer(report.unknownFate)),
            ("invalid_tokens", .integer(badLines.count)),
            ("resent", .integer(report.resent)),
            ("confirmed", .bool(report.confirmed)),
            ("seconds", .string(String(format: "%.3f", seconds))),
            ("per_second", .integer(seconds > 0 ? Int(Double(devices.count) / seconds) : 0)),
        ])
    }
}
