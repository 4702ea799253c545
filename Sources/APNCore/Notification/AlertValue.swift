extension Notification {
    /// A notification's `alert`: a plain string, or a dictionary.
    ///
    /// As in node-apn, the alert stays a string until a setter needs a dictionary (title,
    /// loc-key, …); the string then moves into the dictionary's `body`. A dictionary never
    /// turns back into a string. A string literal is a `.string` alert.
    public enum AlertValue: Hashable, Sendable, ExpressibleByStringLiteral {
        /// A plain string alert: `"alert":"text"`.
        case string(String)
        /// A dictionary alert: `"alert":{"title":…,"body":…}`.
        case dictionary(Alert)

        /// A string literal is a plain string alert.
        public init(stringLiteral value: String) {
            self = .string(value)
        }

        /// The alert text: the string, or the dictionary's `body` (node-apn's
        /// `getAlertText()`).
        public var text: String? {
            switch self {
            case .string(let text): text
            case .dictionary(let alert): alert.body
            }
        }

        /// The dictionary form: the dictionary itself, or a new one whose `body` is the
        /// string (node-apn's `prepareAlert`).
        var asDictionary: Alert {
            switch self {
            case .string(let text): Alert(body: text)
            case .dictionary(let alert): alert
            }
        }
    }
}
