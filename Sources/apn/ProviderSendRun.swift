import APN
import APNFeedbackStore
import Foundation

/// One `apn send --http2`: sends through the HTTP/2 provider API, prints a line per
/// notification not accepted (or every one with `--all`) as its chunk is answered, and the
/// summary, in the binary send's schema (``SendOutput``). With `--store`, every 410 goes into
/// the token store (``ProviderSendStore``).
struct ProviderSendRun: Sendable {
    let options: Provider.Options
    let job: SendJob
    /// `--store FILE` and `--min-free BYTES`, when given.
    let store: (path: String, minimumFreeBytes: Int)?

    init(options: Provider.Options, job: SendJob, store: (path: String, minimumFreeBytes: Int)? = nil) {
        self.options = options
        self.job = job
        self.store = store
    }

    /// The exit status: 0 when every notification was accepted, 1 otherwise (or when the
    /// store cannot take a write: then nothing is sent), 130 when interrupted (SIGINT,
    /// SIGTERM: ``SendInterrupt``).
    func run() async -> Int32 {
        var options = options
        var tokenStore: ProviderSendStore?
        if let store {
            do throws(StoreError) {
                tokenStore = try ProviderSendStore(path: store.path, minimumFreeBytes: store.minimumFreeBytes)
            } catch {
                LineWriter.stderr(
                    "apn send: the token store cannot take a write: \(error). Nothing sent (--store: the 410s "
                        + "could not be kept).")
                return 1
            }
            options.unregisteredTokens = tokenStore?.recording
        }
        for bad in job.badLines { LineWriter.stdout(bad.report) }
        let started = ContinuousClock.now
        let provider = Provider(options: options)
        let host = options.host
        let port = options.port
        provider.on { event in
            if case .connectAttemptFailed(let error, let next) = event {
                LineWriter.stderr(ConnectFlags.attemptLine(host: host, port: port, reason: error.message, nextAttemptIn: next))
            }
        }
        let progress = ProgressLine(total: job.devices.count)
        let feed = ProviderFeed(
            provider: provider, notification: job.notification, devices: job.devices,
            chunkSize: max(1, options.maxConcurrentStreams) * max(1, options.maxConnections), interrupt: job.interrupt,
            printingAll: job.all)
        let feeding = Task { () -> Tally in
            var tally = Tally()
            tally.handedOver = await feed.run { chunk in
                let counts = tally.take(chunk)
                progress.update {
                    $0.sent += counts.total
                    $0.accepted += counts.accepted
                    $0.notAccepted += counts.total - counts.accepted
                }
            }
            return tally
        }
        // Stopped: what is in flight gets the drain window to be answered, then is withdrawn.
        let stopper = job.interrupt.cancel(feeding, afterStopAnd: SendInterrupt.drainWindow)
        var tally = await feeding.value
        stopper.cancel()
        // Interrupted, nothing waits to be answered worth a close (it would wait for it); the
        // 410s answered are committed all the same.
        if !job.interrupt.isRequested { await provider.shutdown() }
        var storeKeys: [(String, JSONValue)] = []
        if let tokenStore { storeKeys = tokenStore.finish(await tokenStore.recording.flush()) }
        progress.finish()
        let seconds = Double((ContinuousClock.now - started) / .microseconds(1)) / 1_000_000
        for device in job.devices[tally.handedOver...] {
            tally.counts.count(.notSent)
            LineWriter.stdout(SendOutput.notSentLine(device))
        }
        if let failure = tally.ending { LineWriter.stderr("apn send: stopped sending: \(ErrorText.message(failure))") }
        LineWriter.stdout(
            SendOutput.summary(
                protocol: "http2", total: job.devices.count, tally.counts, invalidTokens: job.badLines.count,
                interrupted: job.interrupt.isRequested, seconds: seconds, extra: [("retried", .integer(tally.retried))] + storeKeys))
        if job.interrupt.isRequested { return 130 }
        return tally.counts.accepted == job.devices.count && job.badLines.isEmpty ? 0 : 1
    }

    /// What the responses so far came to; only counts are kept, each line is printed as its
    /// response comes.
    struct Tally {
        var counts = SendOutput.Counts()
        var retried = 0
        /// Devices handed over (or failed after a give-up): the rest were not sent.
        var handedOver = 0
        /// The first error that ended the send (credentials, no connection).
        var ending: ProviderError?

        /// Adds a chunk's counts and prints its lines, in the chunk's order; returns its counts.
        mutating func take(_ chunk: ProviderChunk) -> SendOutput.Counts {
            var result = chunk.result
            counts.add(result.counts)
            retried += result.retried
            ending = ending ?? result.ending
            result.printed.sort { $0.offset < $1.offset }
            for (_, response, outcome) in result.printed { LineWriter.stdout(ProviderSendRun.line(response, outcome)) }
            return result.counts
        }
    }

    /// Apple's 200 is `accepted`; its refusals (also after retries) `rejected`; a request
    /// withdrawn by the stop before it was written `not_sent`; one written whose answer never
    /// came (a timeout, a lost connection, the stop: ``ProviderError/mayHaveBeenDelivered``)
    /// `unknown_fate`; the rest `failed`.
    ///
    /// Written as a `guard` and a `switch` on purpose. Swift 6.3.1's optimizer crashed (signal
    /// 6, "Found ownership error?!", CopyPropagation) on `run()` when it compared
    /// `response.error?.code == .rejected || response.error?.code == .retriesExhausted` in the
    /// loop: an optional-chained `==` on a borrowed `ProviderResponse` inside an async
    /// function. Debug builds accepted it, `swift build -c release` did not; do not write the
    /// chain back (.ci/run builds release).
    static func outcome(of response: borrowing ProviderResponse) -> SendOutput.Outcome {
        guard let error = response.error else { return .accepted }
        switch error.code {
        case .rejected, .retriesExhausted: return .rejected
        case .cancelled where response.attempts == 0: return .notSent
        default: return error.mayHaveBeenDelivered ? .unknownFate : .failed
        }
    }

    /// A notification's line (``SendOutput``): HTTP/2 extras `http_status`, `reason` (Apple's,
    /// as it spells it), `timestamp` (410: milliseconds), `apns_id`, `attempts`, and `error`
    /// (failed, unknown fate: the provider's code, snake_case).
    static func line(_ response: ProviderResponse, _ outcome: SendOutput.Outcome) -> JSONValue {
        guard outcome != .notSent else { return SendOutput.notSentLine(response.device) }
        var extra: [(String, JSONValue)] = []
        let error = response.error
        if let status = error?.status ?? response.status { extra.append(("http_status", .integer(status))) }
        if let reason = error?.reason { extra.append(("reason", .string(reason.rawValue))) }
        if let timestamp = error?.timestamp {
            extra.append(("timestamp", .integer(Int((timestamp.timeIntervalSince1970 * 1_000).rounded()))))
        }
        if let apnsID = response.apnsID ?? error?.apnsID { extra.append(("apns_id", .string(apnsID.apnsText))) }
        extra.append(("attempts", .integer(response.attempts)))
        if let error, outcome == .failed || outcome == .unknownFate {
            extra.append(("error", .string(SendOutput.snakeCase(error.code.description))))
        }
        let description = error.map { "\(outcome.rawValue.replacingOccurrences(of: "_", with: " ")): \(ErrorText.message($0))" }
            ?? "accepted: HTTP \(response.status ?? 200) (Apple took it; not a delivery receipt)"
        return SendOutput.line(token: response.device, outcome, description: description, extra: extra)
    }
}
