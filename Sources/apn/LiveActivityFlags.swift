import APN
import Foundation

/// `apn send --http2`'s Live Activity flags (#44): `--event start|update|end` and the keys a
/// Live Activity push carries. With `--event` the push type is `liveactivity` (unless
/// `--push-type` says otherwise) and the timestamp defaults to now; Apple's rules for a start
/// — an alert (`--alert`), `--attributes-type` and `--attributes` — are checked before
/// anything is sent, as is the topic's `.push-type.liveactivity` suffix Apple requires.
enum LiveActivityFlags {
    static let group = FlagGroup(
        "Live Activity (with --http2; builds the payload's aps keys):",
        [
            .valued("--event", "start|update|end", "aps event; the push type becomes liveactivity"),
            .valued("--content-state", "JSON", "aps content-state: the activity's dynamic content (an object)"),
            .valued("--timestamp", "UNIXTIME", "aps timestamp (default with --event: now)"),
            .valued("--attributes-type", "NAME", "aps attributes-type (start): the ActivityAttributes type's name"),
            .valued("--attributes", "JSON", "aps attributes (start): the activity's static attributes (an object)"),
            .valued("--stale-date", "UNIXTIME", "aps stale-date: when the content is outdated"),
            .valued("--dismissal-date", "UNIXTIME", "aps dismissal-date (end): when the ended activity goes away"),
            .toggle("--input-push-token", "aps input-push-token: 1 (start, iOS 18): the activity gets an update token"),
            .valued("--input-push-channel", "ID", "aps input-push-channel (start, iOS 18): the broadcast channel it joins"),
        ])

    /// The flag names, for the checks that they go with `--http2` and not with `--payload`.
    static let names = group.flags.map(\.name)

    /// Applies the flags to `note`, built from flags (not `--payload`). `topic`: the one the
    /// request will carry, if known here.
    static func apply(_ flags: Flags, to note: APN.Notification, topic: String?) throws(UsageError) {
        let given = names.filter(flags.given)
        guard !given.isEmpty else { return }
        guard let event = flags.value("--event") else {
            throw UsageError("\(given[0]) is a Live Activity key: give --event start|update|end too")
        }
        guard ["start", "update", "end"].contains(event) else {
            throw UsageError("--event: \"\(event)\" is not one of start, update, end")
        }
        note.setEvent(event)
        if flags.value("--push-type") == nil { note.setPushType(.liveactivity) }
        let seconds = Int(Date().timeIntervalSince1970.rounded(.down))
        note.setTimestamp(try flags.integer("--timestamp", as: Int.self, in: 0...Int(UInt32.max)) ?? seconds)
        if let state = try object(flags, "--content-state") { note.setContentState(state) }
        if let type = flags.value("--attributes-type") { note.setAttributesType(type) }
        if let attributes = try object(flags, "--attributes") { note.setAttributes(attributes) }
        if let date = try flags.integer("--stale-date", as: Int.self, in: 0...Int(UInt32.max)) { note.setStaleDate(date) }
        if let date = try flags.integer("--dismissal-date", as: Int.self, in: 0...Int(UInt32.max)) {
            note.setDismissalDate(date)
        }
        if flags.has("--input-push-token") { note.setInputPushToken(true) }
        if let channel = flags.value("--input-push-channel") {
            guard !channel.isEmpty else { throw UsageError("--input-push-channel: give the channel's ID") }
            note.setInputPushChannel(channel)
        }
        for startOnly in ["--attributes-type", "--attributes", "--input-push-token", "--input-push-channel"]
        where flags.given(startOnly) && event != "start" {
            throw UsageError("\(startOnly) is for --event start, not \(event)")
        }
        if let problem = note.liveActivityStartProblem() {
            throw UsageError("\(problem): add " + missingFlags(note).joined(separator: ", "))
        }
        if note.pushType == .liveactivity, let topic, !topic.hasSuffix(".push-type.liveactivity") {
            throw UsageError(
                "a Live Activity goes to the topic <bundle id>.push-type.liveactivity (Apple's rule): --topic \(topic).push-type.liveactivity")
        }
    }

    /// The flags that give what a start lacks.
    private static func missingFlags(_ note: APN.Notification) -> [String] {
        var flags: [String] = []
        if note.alert == nil { flags.append("--alert TEXT") }
        if note.attributesType == nil { flags.append("--attributes-type NAME") }
        if note.attributes == nil { flags.append("--attributes JSON") }
        return flags
    }

    /// `name`'s value as a JSON object.
    private static func object(_ flags: Flags, _ name: String) throws(UsageError) -> APN.JSONObject? {
        guard let text = flags.value(name) else { return nil }
        guard case .object(let object) = try FlagJSON.value(text, label: name) else { throw UsageError("\(name) must be a JSON object, {…}") }
        return object
    }
}
