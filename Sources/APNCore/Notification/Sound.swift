/// The `sound` of a notification: a sound file's name, or a critical alert sound.
///
/// A string literal is a ``named(_:)`` sound: `note.sound = "ping.aiff"`.
public enum Sound: Hashable, Sendable, ExpressibleByStringLiteral {
    /// A sound file in the app bundle (or `"default"`), written as a JSON string.
    case named(String)
    /// A critical alert sound, written as `{"critical":1,"name":…,"volume":…}`. `volume`
    /// (0.0 to 1.0) is omitted when `nil`. Critical alerts need Apple's entitlement.
    case critical(name: String, volume: Double?)

    /// A string literal is a named sound.
    public init(stringLiteral value: String) {
        self = .named(value)
    }

    /// The sound file's name, for both cases.
    public var name: String {
        switch self {
        case .named(let name), .critical(let name, _): name
        }
    }

    /// Whether this is a named sound with an empty name, which node-apn left out (an empty
    /// string is falsy in JavaScript).
    var isEmptyName: Bool {
        if case .named(let name) = self {
            return name.isEmpty
        }
        return false
    }

    /// The sound's JSON: a string, or the critical sound's object.
    var jsonValue: JSONValue {
        switch self {
        case .named(let name):
            return .string(name)
        case .critical(let name, let volume):
            var object: JSONObject = ["critical": 1, "name": .string(name)]
            if let volume {
                object["volume"] = .number(volume)
            }
            return .object(object)
        }
    }
}
