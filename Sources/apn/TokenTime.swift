import Foundation

/// The times `apn tokens` takes: UNIX seconds (`1700000000`) or ISO-8601 with a zone
/// (`2023-11-14T22:13:20Z`, `2023-11-14T23:13:20+01:00`, fractions of a second dropped).
enum TokenTime {
    /// Parses `text`; `what` names it in the error.
    static func parse(_ text: String, what: String) throws(UsageError) -> Int64 {
        if let seconds = Int64(text) {
            guard seconds >= 0 else { throw UsageError("\(what): \"\(text)\" is before 1970") }
            return seconds
        }
        for options: ISO8601DateFormatter.Options in [.withInternetDateTime, [.withInternetDateTime, .withFractionalSeconds]] {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = options
            if let date = formatter.date(from: text) {
                let seconds = date.timeIntervalSince1970.rounded(.down)
                guard seconds >= 0 else { throw UsageError("\(what): \"\(text)\" is before 1970") }
                return Int64(seconds)
            }
        }
        throw UsageError("\(what): \"\(text)\" is neither UNIX seconds nor ISO-8601 such as 2023-11-14T22:13:20Z")
    }

    /// Now, as UNIX seconds.
    static var now: Int64 {
        Int64(Date().timeIntervalSince1970.rounded(.down))
    }
}
