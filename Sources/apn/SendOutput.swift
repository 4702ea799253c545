import APN

/// The one look of `apn send`'s output, binary gateway and `--http2` alike: a line per
/// notification with the same keys and ``Outcome`` values, and one summary with the same
/// counts. What only one protocol knows (the binary status code; the HTTP status, Apple's
/// reason, the `apns-id`) goes in extra keys after the common ones, never in a different
/// shape. README's "apn send output" table lists every key.
enum SendOutput {
    /// What became of one notification, as its line says. Accepted means the gateway (or
    /// Apple's HTTP 200) took it, not that the device got it.
    enum Outcome: String {
        case accepted, rejected, failed
        case unknownFate = "unknown_fate"
        case notSent = "not_sent"
    }

    /// A notification's line: `token`, `outcome` and `description` (a sentence), then the
    /// protocol's `extra` keys.
    static func line(token: Device?, _ outcome: Outcome, description: String, extra: [(String, JSONValue)] = []) -> JSONValue {
        .object(
            [("token", token.map { .string($0.hexString) } ?? .null), ("outcome", .string(outcome.rawValue))] + extra
                + [("description", .string(description))])
    }

    /// The line of a notification an interrupted send never handed over.
    static func notSentLine(_ device: Device) -> JSONValue {
        line(token: device, .notSent, description: "not sent: apn send was interrupted first")
    }

    /// The summary's counts, one per ``Outcome``: they add up to ``total``.
    struct Counts {
        var accepted = 0
        var rejected = 0
        var failed = 0
        var unknownFate = 0
        var notSent = 0

        /// Counts one notification.
        mutating func count(_ outcome: Outcome) {
            switch outcome {
            case .accepted: accepted += 1
            case .rejected: rejected += 1
            case .failed: failed += 1
            case .unknownFate: unknownFate += 1
            case .notSent: notSent += 1
            }
        }

        /// Adds `other`'s counts to these.
        mutating func add(_ other: Counts) {
            accepted += other.accepted
            rejected += other.rejected
            failed += other.failed
            unknownFate += other.unknownFate
            notSent += other.notSent
        }

        /// Every notification counted.
        var total: Int { accepted + rejected + failed + unknownFate + notSent }
    }

    /// The summary line: `protocol` (`binary` or `http2`), `total` (valid tokens, every one
    /// counted once in the five outcome counts), `invalid_tokens`, `interrupted`, `seconds`
    /// and `per_second` as numbers, then the protocol's `extra` keys.
    static func summary(
        protocol name: String, total: Int, _ counts: Counts, invalidTokens: Int, interrupted: Bool, seconds: Double,
        extra: [(String, JSONValue)]
    ) -> JSONValue {
        .object(
            [
                ("protocol", .string(name)), ("total", .integer(total)),
                ("accepted", .integer(counts.accepted)), ("rejected", .integer(counts.rejected)),
                ("failed", .integer(counts.failed)), ("unknown_fate", .integer(counts.unknownFate)),
                ("not_sent", .integer(counts.notSent)), ("invalid_tokens", .integer(invalidTokens)),
                ("interrupted", .bool(interrupted)), ("seconds", .decimal(seconds, places: 3)),
                ("per_second", .integer(seconds > 0 ? Int(Double(total) / seconds) : 0)),
            ] + extra)
    }

    /// `connectionRetryLimitExceeded` → `connection_retry_limit_exceeded`, `invalidJSON` →
    /// `invalid_json`: the library's code names as the output's snake_case values.
    static func snakeCase(_ name: String) -> String {
        let characters = Array(name)
        var result = ""
        for (index, character) in characters.enumerated() {
            if character.isUppercase, index > 0 {
                let previous = characters[index - 1]
                let next = index + 1 < characters.count ? characters[index + 1] : nil
                if previous.isLowercase || previous.isNumber || (previous.isUppercase && next?.isLowercase == true) {
                    result.append("_")
                }
            }
            result += character.lowercased()
        }
        return result
    }
}
