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
    let interrupt: SendInterrupt

    init(
        options: Provider.Options, notification: APN.Notification, tokens: TokenList, all: Bool, interrupt: SendInterrupt
    ) {
        self.interrupt = interrupt
        self.options = options
        self.notification = notification
        self.devices = tokens.devices
        self.badLines = tokens.bad
        self.all = all
    }

    /// The exit status: 0 when every notification was delivered, 1 otherwise, 130 when
    /// interrupted (SIGINT, SIGTERM: ``SendInterrupt``).
    func run() async -> Int32 {
        for bad in badLines { LineWriter.stdout(bad.report) }
        let started = ContinuousClock.now
        let provider = Provider(options: options)
        let host = options.host
        let port = options.port
        provider.on { event in
            if case .connectAttemptFailed(let error, let next) = event {
                LineWriter.stderr(ConnectFlags.attemptLine(host: host, port: port, reason: error.message, nextAttemptIn: next))
            }
        }
        let feed = ProviderFeed(
            provider: provider, notification: notification, devices: devices,
            chunkSize: max(1, options.maxConcurrentStreams) * max(1, options.maxConnections), interrupt: interrupt)
        let feeding = Task { await feed.run() }
        // Stopped: what is in flight gets the drain window to be answered, then is withdrawn.
        let stopper = interrupt.cancel(feeding, afterStopAnd: SendInterrupt.drainWindow)
        let responses = await feeding.value
        stopper.cancel()
        // Interrupted, nothing waits to be answered worth a close (it would wait for it).
        if !interrupt.isRequested { await provider.close() }
        let seconds = Double((ContinuousClock.now - started) / .microseconds(1)) / 1_000_000
        var delivered = 0
        var rejected = 0
        var failed = 0
        var retried = 0
        var notSent = 0
        for (index, response) in responses.enumerated() {
            guard let response else {
                notSent += 1
                LineWriter.stdout(SendRun.notSentLine(devices[index]))
                continue
            }
            if response.error?.code == .cancelled && response.attempts == 0 {
                // Withdrawn by the stop before it was written: never sent.
                notSent += 1
                LineWriter.stdout(SendRun.notSentLine(response.device))
                continue
            }
            switch Self.outcome(of: response) {
            case .delivered: delivered += 1
            case .rejected: rejected += 1
            case .failed: failed += 1
            }
            if response.attempts > 1 { retried += 1 }
            if all || !response.isSuccess { LineWriter.stdout(line(response)) }
        }
        if let failure = responses.lazy.compactMap({ $0?.error }).first(where: { [.authentication, .connectionFailed].contains($0.code) }) {
            LineWriter.stderr("apn send: \(failure)")
        }
        LineWriter.stdout(
            .object([
                ("sent", .integer(devices.count)), ("delivered", .integer(delivered)), ("rejected", .integer(rejected)),
                ("failed", .integer(failed)), ("retried", .integer(retried)), ("not_sent", .integer(notSent)),
                ("invalid_tokens", .integer(badLines.count)), ("interrupted", .bool(interrupt.isRequested)),
                ("seconds", .string(String(format: "%.3f", seconds))),
                ("per_second", .integer(seconds > 0 ? Int(Double(devices.count) / seconds) : 0)),
            ]))
        if interrupt.isRequested { return 130 }
        return delivered == devices.count && badLines.isEmpty ? 0 : 1
    }

    /// What one response counts as in the summary and its line.
    enum Outcome: String {
        case delivered, rejected, failed
    }

    /// Apple's refusals (also after retries) are `rejected`; everything else not delivered
    /// is `failed`.
    ///
    /// Written as a `guard` and a `switch` on purpose. Swift 6.3.1's optimizer crashed (signal
    /// 6, "Found ownership error?!", CopyPropagation) on `run()` when it compared
    /// `response.error?.code == .rejected || response.error?.code == .retriesExhausted` in the
    /// loop: an optional-chained `==` on a borrowed `ProviderResponse` inside an async
    /// function. Debug builds accepted it, `swift build -c release` did not; do not write the
    /// chain back (.ci/run builds release).
    static func outcome(of response: ProviderResponse) -> Outcome {
        guard let error = response.error else { return .delivered }
        switch error.code {
        case .rejected, .retriesExhausted: return .rejected
        default: return .failed
        }
    }

    private func line(_ response: ProviderResponse) -> JSONValue {
        var members: [(String, JSONValue)] = [("token", .string(response.device.hexString))]
        let outcome = Self.outcome(of: response)
        members.append(("outcome", .string(outcome.rawValue)))
        if let error = response.error {
            if let status = error.status { members.append(("status", .integer(status))) }
            if let reason = error.reason { members.append(("reason", .string(reason.rawValue))) }
            if let timestamp = error.timestamp {
                members.append(("timestamp", .integer(Int((timestamp.timeIntervalSince1970 * 1_000).rounded()))))
            }
            members.append(("error", .string(error.description)))
        } else {
            members.append(("status", .integer(response.status ?? 0)))
        }
        if let apnsID = response.apnsID { members.append(("apns_id", .string(apnsID))) }
        if response.attempts > 1 { members.append(("attempts", .integer(response.attempts))) }
        return .object(members)
    }
}
