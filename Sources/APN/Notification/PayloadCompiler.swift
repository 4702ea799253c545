/// Builds a notification's JSON exactly as node-apn 1.7.8's `JSON.stringify(notification)`.
///
/// - With `mdm` set: the custom payload keys with `"mdm"` set among them (in place if the
///   payload already has an `mdm` key, else last), and no `aps`.
/// - Otherwise: the custom payload keys in JavaScript property order, then `"aps"` with,
///   in this order, badge, sound, alert, content-available, mutable-content, url-args,
///   category (node-apn's keys), then thread-id, target-content-id, interruption-level,
///   relevance-score, filter-criteria, timestamp, event, content-state, stale-date,
///   dismissal-date, attributes-type, attributes. Unset keys are omitted, and `aps` too
///   when it would be empty, so an empty notification is `{}`.
enum PayloadCompiler {
    /// The payload as UTF-8 JSON.
    static func compile(_ state: NotificationState) -> [UInt8] {
        var writer = JSONWriter(capacity: 256)
        if let mdm = state.mdm {
            var payload = state.payload
            payload["mdm"] = .string(mdm)
            writer.write(payload)
            return writer.bytes
        }
        writer.bytes.append(UInt8(ascii: "{"))
        var first = true
        writer.writeMembers(of: state.payload, first: &first)
        let beforeAps = writer.bytes.count
        writer.writeStaticKey("aps", first: &first)
        if writeAps(state, to: &writer) {
            writer.bytes.append(UInt8(ascii: "}"))
        } else {
            writer.bytes.removeSubrange(beforeAps...)
        }
        writer.bytes.append(UInt8(ascii: "}"))
        return writer.bytes
    }

    /// Writes `{` and the aps members; returns whether any member was written. The caller
    /// closes the object, or removes what was written when nothing was.
    private static func writeAps(_ state: NotificationState, to writer: inout JSONWriter) -> Bool {
        writer.bytes.append(UInt8(ascii: "{"))
        var first = true
        if let badge = state.badge {
            writer.writeStaticKey("badge", first: &first)
            writer.write(integer: badge)
        }
        if let sound = state.sound {
            writer.writeStaticKey("sound", first: &first)
            sound.write(to: &writer)
        }
        if let alert = state.alert {
            writer.writeStaticKey("alert", first: &first)
            switch alert {
            case .string(let text): writer.write(string: text)
            case .dictionary(let dictionary): writer.write(dictionary.fields)
            }
        }
        if state.contentAvailable {
            writer.writeStaticKey("content-available", first: &first)
            writer.write(integer: 1)
        }
        if state.mutableContent {
            writer.writeStaticKey("mutable-content", first: &first)
            writer.write(integer: 1)
        }
        if let urlArgs = state.urlArgs {
            writer.writeStaticKey("url-args", first: &first)
            writer.write(strings: urlArgs)
        }
        writeString(state.category, "category", &writer, &first)
        writeString(state.threadId, "thread-id", &writer, &first)
        writeString(state.targetContentId, "target-content-id", &writer, &first)
        writeString(state.interruptionLevel?.rawValue, "interruption-level", &writer, &first)
        if let relevanceScore = state.relevanceScore {
            writer.writeStaticKey("relevance-score", first: &first)
            writer.write(number: relevanceScore)
        }
        writeString(state.filterCriteria, "filter-criteria", &writer, &first)
        writeInteger(state.timestamp, "timestamp", &writer, &first)
        writeString(state.event, "event", &writer, &first)
        writeObject(state.contentState, "content-state", &writer, &first)
        writeInteger(state.staleDate, "stale-date", &writer, &first)
        writeInteger(state.dismissalDate, "dismissal-date", &writer, &first)
        writeString(state.attributesType, "attributes-type", &writer, &first)
        writeObject(state.attributes, "attributes", &writer, &first)
        return !first
    }

    private static func writeString(
        _ value: String?, _ key: StaticString, _ writer: inout JSONWriter, _ first: inout Bool
    ) {
        guard let value else { return }
        writer.writeStaticKey(key, first: &first)
        writer.write(string: value)
    }

    private static func writeInteger(
        _ value: Int?, _ key: StaticString, _ writer: inout JSONWriter, _ first: inout Bool
    ) {
        guard let value else { return }
        writer.writeStaticKey(key, first: &first)
        writer.write(integer: value)
    }

    private static func writeObject(
        _ value: JSONObject?, _ key: StaticString, _ writer: inout JSONWriter, _ first: inout Bool
    ) {
        guard let value else { return }
        writer.writeStaticKey(key, first: &first)
        writer.write(value)
    }
}
