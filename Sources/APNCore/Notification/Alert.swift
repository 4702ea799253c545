/// The dictionary form of a notification's `alert`, with ordered keys.
///
/// Keys are written in the order they were first set (a key that is set again keeps its
/// place), as node-apn's alert object did. Setting a property to `nil` removes its key.
/// Keys this type has no property for can be reached through the subscript.
public struct Alert: Hashable, Sendable, CustomStringConvertible {
    /// The alert's keys and values, in order.
    public private(set) var fields: JSONObject

    /// An empty alert dictionary.
    public init() {
        fields = JSONObject()
    }

    /// An alert dictionary holding only `body`.
    public init(body: String) {
        fields = ["body": .string(body)]
    }

    /// Any key of the alert dictionary, e.g. `alert["summary-arg"] = "Jane"`. Setting `nil`
    /// removes the key.
    public subscript(key: String) -> JSONValue? {
        get { fields[key] }
        set { fields[key] = newValue }
    }

    /// `body`: the alert text.
    public var body: String? {
        get { string("body") }
        set { setString("body", newValue) }
    }

    /// `title`: a short title (iOS 8.2 and later).
    public var title: String? {
        get { string("title") }
        set { setString("title", newValue) }
    }

    /// `subtitle`: a secondary title (iOS 10 and later).
    public var subtitle: String? {
        get { string("subtitle") }
        set { setString("subtitle", newValue) }
    }

    /// `action`: the title of the action button (later iOS versions ignore it).
    public var action: String? {
        get { string("action") }
        set { setString("action", newValue) }
    }

    /// `action-loc-key`: the localization key of the action button's title.
    public var actionLocKey: String? {
        get { string("action-loc-key") }
        set { setString("action-loc-key", newValue) }
    }

    /// `loc-key`: the localization key of the alert text.
    public var locKey: String? {
        get { string("loc-key") }
        set { setString("loc-key", newValue) }
    }

    /// `loc-args`: the values substituted into `loc-key`'s format.
    public var locArgs: [String]? {
        get { strings("loc-args") }
        set { setStrings("loc-args", newValue) }
    }

    /// `title-loc-key`: the localization key of the title.
    public var titleLocKey: String? {
        get { string("title-loc-key") }
        set { setString("title-loc-key", newValue) }
    }

    /// `title-loc-args`: the values substituted into `title-loc-key`'s format.
    public var titleLocArgs: [String]? {
        get { strings("title-loc-args") }
        set { setStrings("title-loc-args", newValue) }
    }

    /// `subtitle-loc-key`: the localization key of the subtitle.
    public var subtitleLocKey: String? {
        get { string("subtitle-loc-key") }
        set { setString("subtitle-loc-key", newValue) }
    }

    /// `subtitle-loc-args`: the values substituted into `subtitle-loc-key`'s format.
    public var subtitleLocArgs: [String]? {
        get { strings("subtitle-loc-args") }
        set { setStrings("subtitle-loc-args", newValue) }
    }

    /// `launch-image`: the launch image to show when the app opens from the alert.
    public var launchImage: String? {
        get { string("launch-image") }
        set { setString("launch-image", newValue) }
    }

    /// The dictionary as JSON text.
    public var description: String {
        fields.jsonString()
    }

    private func string(_ key: String) -> String? {
        if case .string(let value)? = fields[key] {
            return value
        }
        return nil
    }

    private mutating func setString(_ key: String, _ value: String?) {
        fields[key] = value.map(JSONValue.string)
    }

    private func strings(_ key: String) -> [String]? {
        guard case .array(let elements)? = fields[key] else {
            return nil
        }
        var result: [String] = []
        result.reserveCapacity(elements.count)
        for element in elements {
            guard case .string(let value) = element else {
                return nil
            }
            result.append(value)
        }
        return result
    }

    private mutating func setStrings(_ key: String, _ values: [String]?) {
        fields[key] = values.map { .array($0.map(JSONValue.string)) }
    }
}
