import APN

/// A feedback tuple as one JSON line, `{"event":"feedback","time":UNIX,"date":"ISO-8601",
/// "token":"<hex>"}`, read back: what `apn tokens import` applies. The lines are written by
/// ``FeedbackRecoveryFile/line(for:)`` (`APNFeedbackService`, for the feedback service and
/// `apn send --store`); the recovery tests replay what it wrote, so the two cannot drift apart.
enum FeedbackLine {
    /// The keys a line may have; any other is refused, so a misspelt one is not ignored.
    private static let keys: Set<String> = ["event", "time", "date", "token"]

    /// The tuple a line holds; "date" is informational and not read (the time is).
    static func entry(_ text: Substring) throws(UsageError) -> Feedback.Entry {
        let object: JSONObject
        do throws(JSONParseError) {
            object = try JSONParser().parseObject(String(text))
        } catch {
            throw UsageError("not a JSON object: \(error)")
        }
        if let unknown = object.keys.first(where: { !keys.contains($0) }) {
            throw UsageError("a feedback line has no key \"\(unknown)\" (it has event, time, date and token)")
        }
        guard case .string("feedback")? = object["event"] else {
            throw UsageError(
                "a JSON line must be a feedback tuple, {\"event\":\"feedback\",\"time\":UNIX,\"token\":\"<hex>\"}")
        }
        guard case .number(let number)? = object["time"], number >= 0, number <= Double(UInt32.max),
            number.rounded(.towardZero) == number
        else {
            throw UsageError("a feedback line's \"time\" must be whole UNIX seconds from 0 to \(UInt32.max)")
        }
        guard case .string(let token)? = object["token"] else {
            throw UsageError("a feedback line's \"token\" must be a string of hex digits")
        }
        return Feedback.Entry(unixTime: UInt32(number), device: try TokensCommand.device(token))
    }
}
