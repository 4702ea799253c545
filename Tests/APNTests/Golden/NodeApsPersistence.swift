import APN

/// Finds the cases where node-apn 1.7.8's payload mutation shows, a deliberate difference
/// (Fixtures/golden/README.md).
///
/// node-apn's `toJSON` writes the `aps` it builds into the notification's payload object, and
/// the next compile starts from that object: a value cleared since (an alert trimmed to `""`,
/// a sound set to `""`, content-available turned off) falls back to the one compiled
/// before, content-available or mutable-content set later lands after the keys already
/// there, and a payload compiled once keeps its `mdm` key (or its `aps`) when the
/// notification changes kind. swift-apn compiles every payload from the notification's
/// current values.
///
/// This looks at swift-apn's payload at each of node-apn's compiles (every `trim` starts with
/// one; the final `compile()` is the last) and says when node-apn's persisted object would
/// have given something else. Until that happens node-apn's payload equals swift-apn's, so
/// swift-apn's previous payload is what node-apn persisted.
enum NodeApsPersistence {
    /// swift-apn's payload at one of node-apn's compiles.
    struct Compile {
        /// The payload as text.
        let json: String
        /// Whether the notification had `mdm` set (its payload has no aps of its own).
        let isMDM: Bool

        init(_ notification: Notification) {
            json = notification.payloadString()
            isMDM = notification.mdm != nil
        }
    }

    private static let flags: Set<String> = ["content-available", "mutable-content"]

    /// Why node-apn's output for this sequence of compiles differs, or `nil` if it does not.
    static func difference(compiles: [Compile], customAps: JSONObject?) throws -> String? {
        var previous: (aps: JSONObject?, isMDM: Bool)?
        for (index, compile) in compiles.enumerated() {
            guard case .object(let payload) = try TestJSONParser.parse(compile.json) else {
                return "compile \(index + 1) is not an object"
            }
            var aps: JSONObject?
            if case .object(let object)? = payload["aps"] {
                aps = object
            }
            if let previous,
                let reason = difference(from: previous, to: (aps, compile.isMDM), customAps: customAps)
            {
                return "compile \(index + 1) of \(compiles.count): \(reason)"
            }
            previous = (aps, compile.isMDM)
        }
        return nil
    }

    private static func difference(
        from old: (aps: JSONObject?, isMDM: Bool),
        to new: (aps: JSONObject?, isMDM: Bool),
        customAps: JSONObject?
    ) -> String? {
        if old.isMDM {
            return new.isMDM ? nil : "mdm is gone, node-apn keeps it in the payload"
        }
        guard let oldAps = old.aps else {
            return nil  // node-apn dropped the empty aps and starts afresh
        }
        if new.isMDM {
            return "mdm is set, node-apn keeps the aps it compiled before"
        }
        let newAps = new.aps ?? JSONObject()
        for (key, value) in oldAps {
            guard let current = newAps[key] else {
                return "aps \"\(key)\" is gone, node-apn keeps \(short(value))"
            }
            if current != value, customAps?[key] == current {
                return "aps \"\(key)\" fell back to the custom \(short(current)), node-apn keeps \(short(value))"
            }
        }
        let newFlags = flags.filter { oldAps[$0] == nil && newAps[$0] != nil }
        for flag in newFlags {
            let later = newAps.keys.drop { $0 != flag }.dropFirst().filter { !newFlags.contains($0) }
            if !later.isEmpty {
                return "\"\(flag)\" is new, node-apn appends it after \(later)"
            }
        }
        return nil
    }

    /// A value's JSON, cut to 40 characters for a one-line reason.
    private static func short(_ value: JSONValue) -> String {
        let text = value.jsonString()
        return text.count <= 40 ? text : text.prefix(40) + "…"
    }
}
