/// The `aps` dictionary of a notification, by node-apn 1.7.8's rules.
///
/// It starts from the custom payload's `aps` object (an empty one when there is none, or it
/// is `null`) and sets the notification's keys into it: a key the custom object already has
/// is replaced in place, a new key goes to the end. node-apn's keys come in its order —
/// badge, sound, alert, content-available, mutable-content, url-args, category — then the
/// keys Apple added later: thread-id, target-content-id, interruption-level,
/// relevance-score, filter-criteria, timestamp, event, content-state, stale-date,
/// dismissal-date, attributes-type, attributes, input-push-token, input-push-channel.
///
/// As in node-apn, a value JavaScript calls falsy is not written and leaves the custom
/// `aps` value of that key, if any, alone: an empty string alert, sound or category, and
/// `false` content-available or mutable-content. `badge` 0 is written, and so are an empty
/// alert dictionary and an empty url-args array. The later keys are written whenever they
/// are set.
enum ApsBuilder {
    /// The merged `aps` dictionary; empty when there is nothing to write.
    static func aps(of state: NotificationState) -> JSONObject {
        var aps = JSONObject()
        if case .object(let custom)? = state.payload[Notification.apsKey] {
            aps = custom
        }
        if let badge = state.badge {
            aps["badge"] = .number(Double(badge))
        }
        if let sound = state.sound, !sound.isEmptyName {
            aps["sound"] = sound.jsonValue
        }
        switch state.alert {
        case .string(let text)? where !text.isEmpty:
            aps["alert"] = .string(text)
        case .dictionary(let dictionary)?:
            aps["alert"] = .object(dictionary.fields)
        case .string?, nil:
            break
        }
        if state.contentAvailable {
            aps["content-available"] = 1
        }
        if state.mutableContent {
            aps["mutable-content"] = 1
        }
        if let urlArgs = state.urlArgs {
            aps["url-args"] = .array(urlArgs.map(JSONValue.string))
        }
        if let category = state.category, !category.isEmpty {
            aps["category"] = .string(category)
        }
        setModernKeys(of: state, into: &aps)
        return aps
    }

    /// The keys Apple added after node-apn 1.x, each written whenever it is set.
    private static func setModernKeys(of state: NotificationState, into aps: inout JSONObject) {
        set(state.threadID.map(JSONValue.string), "thread-id", in: &aps)
        set(state.targetContentID.map(JSONValue.string), "target-content-id", in: &aps)
        set(state.interruptionLevel.map { .string($0.rawValue) }, "interruption-level", in: &aps)
        set(state.relevanceScore.map(JSONValue.number), "relevance-score", in: &aps)
        set(state.filterCriteria.map(JSONValue.string), "filter-criteria", in: &aps)
        set(state.timestamp.map { .number(Double($0)) }, "timestamp", in: &aps)
        set(state.event.map(JSONValue.string), "event", in: &aps)
        set(state.contentState.map(JSONValue.object), "content-state", in: &aps)
        set(state.staleDate.map { .number(Double($0)) }, "stale-date", in: &aps)
        set(state.dismissalDate.map { .number(Double($0)) }, "dismissal-date", in: &aps)
        set(state.attributesType.map(JSONValue.string), "attributes-type", in: &aps)
        set(state.attributes.map(JSONValue.object), "attributes", in: &aps)
        set(state.inputPushToken ? 1 : nil, "input-push-token", in: &aps)
        set(state.inputPushChannel.map(JSONValue.string), "input-push-channel", in: &aps)
    }

    /// Sets `key` to `value` when there is one; `nil` leaves the key as it is.
    private static func set(_ value: JSONValue?, _ key: String, in aps: inout JSONObject) {
        if let value {
            aps[key] = value
        }
    }
}
