import APN
import Foundation

/// One `apn send --http2`: sends through the HTTP/2 provider API, prints a line per
/// notification not delivered (or every one with `--all`) and the summary.
struct ProviderSendRun: Sendable {
    let options: Provider.Options
    let notification: APN.Notification
    let devices: [Device]
    let badLines: [TokenList.BadLine]
    let all: Bool

    init(options: Provider.Options, notification: APN.Notification, tokens: TokenList, all: Bool) {
        self.options = options
        self.notification = notification
        self.devices = tokens.devices
        self.badLines = tokens.bad
        self.all = all
    }

    /// The exit status: 0 when every notification was delivered, 1 otherwise.
    func run() async -> Int32 {
        for bad in badLines { LineWriter.stdout(bad.report) }
        let started = ContinuousClock.now
        let provider = Provider(options: options)
        let responses = await provider.send(notification, to: devices)
        await provider.close()
        let seconds = Double((ContinuousClock.now - started) / .microseconds(1)) / 1_000_000
        var delivered = 0
        var rejected = 0
        var failed = 0
        var retried = 0
        for response in responses {
            if response.isSuccess {
                delivered += 1
            } else if response.error?.code == .rejected || response.error?.code == .retriesExhausted {
                rejected += 1
            } else {
                failed += 1
            }
            if response.attempts > 1 { retried += 1 }
            if all || !response.isSuccess { LineWriter.stdout(line(response)) }
        }
        if let failure = responses.lazy.compactMap(\.error).first(where: { [.authentication, .connectionFailed].contains($0.code) }) {
            LineWriter.stderr("apn send: \(failure)")
        }
        LineWriter.stdout(
            .object([
                ("sent", .integer(devices.count)), ("delivered", .integer(delivered)), ("rejected", .integer(rejected)),
                ("failed", .integer(failed)), ("retried", .integer(retried)), ("invalid_tokens", .integer(badLines.count)),
                ("seconds", .string(String(format: "%.3f", seconds))),
                ("per_second", .integer(seconds > 0 ? Int(Double(devices.count) / seconds) : 0)),
            ]))
        return delivered == devices.count && badLines.isEmpty ? 0 : 1
    }

    private func line(_ response: ProviderResponse) -> JSONValue {
        var members: [(String, JSONValue)] = [("token", .string(response.device.hexString))]
        if let error = response.error {
            let rejected = error.code == .rejected || error.code == .retriesExhausted
            members.append(("outcome", .string(rejected ? "rejected" : "failed")))
            if let status = error.status { members.append(("status", .integer(status))) }
            if let reason = error.reason { members.append(("reason", .string(reason.rawValue))) }
            if let timestamp = error.timestamp {
                members.append(("timestamp", .integer(Int((timestamp.timeIntervalSince1970 * 1_000).rounded()))))
            }
            members.append(("error", .string(error.description)))
        } else {
            members.append(("outcome", .string("delivered")))
            members.append(("status", .integer(response.status ?? 0)))
        }
        if let apnsID = response.apnsID { members.append(("apns_id", .string(apnsID))) }
        if response.attempts > 1 { members.append(("attempts", .integer(response.attempts))) }
        return .object(members)
    }
}
