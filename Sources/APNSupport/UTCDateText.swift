import Glibc

/// A UNIX time as the ISO-8601 UTC text every JSON line of ours carries beside it,
/// `2026-12-06T13:01:21Z`: one writer for the CLI's lines and the feedback service's
/// recovery file, so the two cannot differ.
package enum UTCDateText {
    /// `seconds` since 1970 as `YYYY-MM-DDTHH:MM:SSZ`.
    package static func iso8601(seconds: Int) -> String {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        return pad(Int(parts.tm_year) + 1900, 4) + "-" + pad(Int(parts.tm_mon) + 1, 2) + "-" + pad(Int(parts.tm_mday), 2)
            + "T" + pad(Int(parts.tm_hour), 2) + ":" + pad(Int(parts.tm_min), 2) + ":" + pad(Int(parts.tm_sec), 2) + "Z"
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }
}
