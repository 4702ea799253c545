/// Builds a notification's JSON exactly as node-apn 1.7.8's `JSON.stringify(notification)`.
///
/// - With `mdm` set: the custom payload keys with `"mdm"` set among them (in place if the
///   payload already has an `mdm` key, else last). The notification's own aps keys are not
///   written; a custom `aps` object is written as it is.
/// - Otherwise: the custom payload keys in JavaScript property order, with `"aps"` built by
///   ``ApsBuilder``: the custom `aps` object, if any, with the notification's keys merged
///   into it (in place, or at the end). `aps` keeps its place among the custom keys, or
///   comes last; it is left out when it would be empty, so an empty notification is `{}`.
enum PayloadCompiler {
    /// The payload as UTF-8 JSON.
    static func compile(_ state: NotificationState) -> [UInt8] {
        var payload = state.payload
        if let mdm = state.mdm {
            payload[Notification.mdmKey] = .string(mdm)
        } else {
            let aps = ApsBuilder.aps(of: state)
            payload[Notification.apsKey] = aps.isEmpty ? nil : .object(aps)
        }
        var writer = JSONWriter(capacity: 256)
        writer.write(payload)
        return writer.bytes
    }
}
