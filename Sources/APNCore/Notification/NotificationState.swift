package import Foundation // UUID

/// Everything a ``Notification`` holds, guarded by its mutex.
///
/// The payload fields are stored properties whose `didSet` drops the compiled payload,
/// so no change can leave stale bytes behind (node-apn 1.3–1.7.2 kept them).
package struct NotificationState: Sendable {
    /// The compiled payload in `encoding`; `nil` until compiled or after any change.
    var compiled: [UInt8]?
    /// The payload JSON as given to ``Notification/init(payloadJSON:parser:)-(String,_)``
    /// (UTF-8, whitespace between tokens removed), sent instead of compiling the fields
    /// until any payload field changes. A change of `encoding` keeps it.
    var givenJSON: [UInt8]?

    // MARK: Payload fields: every change invalidates `compiled`.

    var payload = JSONObject() { didSet { payloadChanged() } }
    package var alert: Notification.AlertValue? { didSet { payloadChanged() } }
    package var badge: Int? { didSet { payloadChanged() } }
    package var sound: Sound? { didSet { payloadChanged() } }
    package var contentAvailable = false { didSet { payloadChanged() } }
    var mutableContent = false { didSet { payloadChanged() } }
    var urlArgs: [String]? { didSet { payloadChanged() } }
    var category: String? { didSet { payloadChanged() } }
    var mdm: String? { didSet { payloadChanged() } }
    var threadID: String? { didSet { payloadChanged() } }
    var targetContentID: String? { didSet { payloadChanged() } }
    var interruptionLevel: InterruptionLevel? { didSet { payloadChanged() } }
    var relevanceScore: Double? { didSet { payloadChanged() } }
    var filterCriteria: String? { didSet { payloadChanged() } }
    var timestamp: Int? { didSet { payloadChanged() } }
    var event: String? { didSet { payloadChanged() } }
    var contentState: JSONObject? { didSet { payloadChanged() } }
    var staleDate: Int? { didSet { payloadChanged() } }
    var dismissalDate: Int? { didSet { payloadChanged() } }
    var attributesType: String? { didSet { payloadChanged() } }
    var attributes: JSONObject? { didSet { payloadChanged() } }
    var inputPushToken = false { didSet { payloadChanged() } }
    var inputPushChannel: String? { didSet { payloadChanged() } }
    package var encoding = PayloadEncoding.utf8 { didSet { compiled = nil } }

    // MARK: Delivery fields: not part of the payload, so they keep `compiled`.

    package var expiry: UInt32 = 0
    package var priority: UInt8 = 10
    var retryLimit = -1
    var truncateAtWordEnd = false
    var device: Device?
    var errorCallback: Notification.ErrorCallback?

    // MARK: HTTP/2 provider API headers: the binary protocol has no field for them.

    package var topic: String?
    package var pushType: PushType?
    package var collapseID: String?
    package var apnsID: UUID?

    /// The compiled payload, compiling and caching it first if needed.
    package mutating func compiledPayload() -> [UInt8] {
        if let compiled {
            return compiled
        }
        let bytes = encoding.encode(utf8: givenJSON ?? PayloadCompiler.compile(self))
        compiled = bytes
        return bytes
    }

    /// Drops the compiled bytes and the given JSON: the payload is now the fields'.
    mutating func payloadChanged() {
        compiled = nil
        givenJSON = nil
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
