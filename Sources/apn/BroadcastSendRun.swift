import APN
import Foundation

/// `apn send --http2 --channel ID`: one broadcast to a channel (``Provider/broadcast(_:to:bundleID:)``)
/// instead of notifications to tokens. Prints one line — the channel, the outcome, Apple's
/// status, reason, `apns-request-id` and `apns-unique-id` — and a summary in the send's
/// schema.
enum BroadcastSendRun {
    /// The flags a broadcast cannot take: it has no recipients but the channel, and no 410s.
    static let excluded = ["--token", "--tokens-file", "--store", "--min-free", "--collapse-id", "--all"]

    /// The exit status: 0 when Apple accepted it, 1 when not, 2 when it cannot be sent as
    /// given (bad usage: a start, a push type other than liveactivity, a channel id that is
    /// not base64), 130 when interrupted (SIGINT, SIGTERM: the answer is awaited for
    /// ``SendInterrupt/drainWindow``, then the broadcast is withdrawn).
    static func run(
        _ flags: Flags, note: APN.Notification, channel id: String, options: Provider.Options, interrupt: SendInterrupt
    ) throws(UsageError) -> Int32 {
        if let flag = excluded.first(where: flags.given) { throw UsageError("\(flag) does not go with --channel (a broadcast)") }
        if flags.value("--push-type") == nil { note.setPushType(.liveactivity) }
        try ProviderFlags.requireCredentials(options, flags)
        try PayloadFlags.requirePayload(flags)
        let channel = BroadcastChannel(id: id)
        let provider = Provider(options: options)
        return runBlocking {
            let started = ContinuousClock.now
            var members: [(String, JSONValue)] = [("channel_id", .string(id))]
            let status: Int32
            let sending = Task { () -> Result<BroadcastResponse, ProviderError> in
                do throws(ProviderError) {
                    return .success(try await provider.broadcast(note, to: channel))
                } catch {
                    return .failure(error)
                }
            }
            let stopper = interrupt.cancel(sending, afterStopAnd: SendInterrupt.drainWindow)
            let result = await sending.value
            stopper.cancel()
            do throws(ProviderError) {
                let response = try result.get()
                members += [
                    ("outcome", .string("accepted")), ("http_status", .integer(response.status)),
                    ("request_id", response.requestID.map { .string($0.apnsText) } ?? .null),
                    ("unique_id", response.uniqueID.map(JSONValue.string) ?? .null),
                    ("attempts", .integer(response.attempts)),
                ]
                status = 0
            } catch where error.code == .invalidNotification {
                await provider.shutdown()
                LineWriter.stderr("apn send: --channel: \(ErrorText.message(error))")
                return 2
            } catch {
                let outcome =
                    error.status != nil
                    ? "rejected"
                    : error.mayHaveBeenDelivered ? "unknown_fate" : error.code == .cancelled ? "not_sent" : "failed"
                members += [
                    ("outcome", .string(outcome)),
                    ("http_status", error.status.map(JSONValue.integer) ?? .null),
                    ("reason", error.reason.map { .string($0.rawValue) } ?? .null),
                    ("request_id", error.requestID.map { .string($0.apnsText) } ?? .null),
                    ("error", .string(SendOutput.snakeCase(error.code.description))),
                    ("description", .string(ErrorText.message(error))),
                ]
                status = interrupt.isRequested ? 130 : 1
            }
            if !interrupt.isRequested { await provider.shutdown() }
            let seconds = Double((ContinuousClock.now - started) / .microseconds(1)) / 1_000_000
            LineWriter.stdout(.object(members))
            LineWriter.stdout(
                .object([
                    ("protocol", .string("http2")), ("broadcast", .bool(true)), ("total", .integer(1)),
                    ("accepted", .integer(status == 0 ? 1 : 0)), ("interrupted", .bool(interrupt.isRequested)),
                    ("seconds", .decimal(seconds, places: 3)),
                ]))
            return status
        }
    }
}
