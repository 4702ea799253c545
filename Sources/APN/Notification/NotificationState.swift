/// Everything a ``Notification`` holds, guarded by its mutex.
///
/// The payload fields are stored properties whose `didSet` drops the compiled payload,
/// so no change can leave stale bytes behind (node-apn 1.3–1.7.2 kept them).
struct NotificationState: Sendable {
    /// The compiled payload in `encoding`; `nil` until compiled or after any change.
    var compiled: [UInt8]?

    // MARK: Payload fields: every change invalidates `compiled`.

    var payload = JSONObject() { didSet { compiled = nil } }
    var alert: Notification.AlertValue? { didSet { compiled = nil } }
    var badge: Int? { didSet { compiled = nil } }
    var sound: Sound? { didSet { compiled = nil } }
    var contentAvailable = false { didSet { compiled = nil } }
    var mutableContent = false { didSet { compiled = nil } }
    var urlArgs: [String]? { didSet { compiled = nil } }
    var category: String? { didSet { compiled = nil } }
    var mdm: String? { didSet { compiled = nil } }
    var threadId: String? { didSet { compiled = nil } }
    var targetContentId: String? { didSet { compiled = nil } }
    var interruptionLevel: InterruptionLevel? { didSet { compiled = nil } }
    var relevanceScore: Double? { didSet { compiled = nil } }
    var filterCriteria: String? { didSet { compiled = nil } }
    var timestamp: Int? { didSet { compiled = nil } }
    var event: String? { didSet { compiled = nil } }
    var contentState: JSONObject? { didSet { compiled = nil } }
    var staleDate: Int? { didSet { compiled = nil } }
    var dismissalDate: Int? { didSet { compiled = nil } }
    var attributesType: String? { didSet { compiled = nil } }
    var attributes: JSONObject? { didSet { compiled = nil } }
    var encoding = PayloadEncoding.utf8 { didSet { compiled = nil } }

    // MARK: Delivery fields: not part of the payload, so they keep `compiled`.

    var expiry: UInt32 = 0
    var priority: UInt8 = 10
    var retryLimit = -1
    var truncateAtWordEnd = false
    var device: Device?
    var errorCallback: Notification.ErrorCallback?

    /// The compiled payload, compiling and caching it first if needed.
    mutating func compiledPayload() -> [UInt8] {
        if let compiled {
            return compiled
        }
        let bytes = encoding.encode(utf8: PayloadCompiler.compile(self))
        compiled = bytes
        return bytes
    }

    /// node-apn's `setAlertText`: a string unless the alert is a dictionary, then `body`.
    mutating func setAlertText(_ text: String) {
        if case .dictionary(var dictionary)? = alert {
            dictionary.body = text
            alert = .dictionary(dictionary)
        } else {
            alert = .string(text)
        }
    }

    /// Changes the alert dictionary, converting a string (or no alert) first, as
    /// node-apn's `prepareAlert` does.
    mutating func updateAlertDictionary(_ change: (inout Alert) -> Void) {
        var dictionary = alert?.asDictionary ?? Alert()
        change(&dictionary)
        alert = .dictionary(dictionary)
    }

    /// Removes a key from the alert dictionary, converting a string (or no alert) first,
    /// as node-apn's `setLocKey(null)` and the like do: `"Hello"` becomes
    /// `{"body":"Hello"}`, and no alert becomes `{}`.
    mutating func removeAlertKey(_ key: String) {
        updateAlertDictionary { $0[key] = nil }
    }
}
