extension Notification {
    /// The custom top-level payload keys, in insertion order (serialized in JavaScript
    /// property order). Change them with ``setCustom(_:_:)``, ``removeCustom(_:)`` or
    /// ``setPayload(_:)``. A custom `aps` object is merged with the notification's own aps
    /// keys when the payload is compiled.
    public var payload: JSONObject {
        withState { $0.payload }
    }

    /// The alert: a string, or a dictionary once a setter needed one. `nil` and an empty
    /// string omit it (node-apn left out falsy values); an empty dictionary is written.
    public var alert: AlertValue? {
        get { withState { $0.alert } }
        set { withState { $0.alert = newValue } }
    }

    /// The alert text: the string alert, or the dictionary's `body` (node-apn's
    /// `getAlertText()`).
    public var alertText: String? {
        withState { $0.alert?.text }
    }

    /// `badge`: the number on the app icon. `0` is written (it clears the badge); `nil`
    /// omits the key.
    public var badge: Int? {
        get { withState { $0.badge } }
        set { withState { $0.badge = newValue } }
    }

    /// `sound`: a sound name or a critical sound. `nil` and an empty name omit it.
    public var sound: Sound? {
        get { withState { $0.sound } }
        set { withState { $0.sound = newValue } }
    }

    /// `content-available`: when `true`, `"content-available":1` wakes the app in the
    /// background. Do not send such a push with priority 10 if it has nothing else.
    public var contentAvailable: Bool {
        get { withState { $0.contentAvailable } }
        set { withState { $0.contentAvailable = newValue } }
    }

    /// `mutable-content`: when `true`, `"mutable-content":1` lets a notification service
    /// extension change the content (iOS 10 and later).
    public var mutableContent: Bool {
        get { withState { $0.mutableContent } }
        set { withState { $0.mutableContent = newValue } }
    }

    /// `url-args`: the values substituted into a Safari website push's URL format.
    public var urlArgs: [String]? {
        get { withState { $0.urlArgs } }
        set { withState { $0.urlArgs = newValue } }
    }

    /// `category`: the identifier of the app's notification category (its actions). `nil`
    /// and an empty string omit it.
    public var category: String? {
        get { withState { $0.category } }
        set { withState { $0.category = newValue } }
    }

    /// `mdm`: a Mobile Device Management push magic. When set, the payload is the custom
    /// keys plus `"mdm":…` and has no `aps` at all.
    public var mdm: String? {
        get { withState { $0.mdm } }
        set { withState { $0.mdm = newValue } }
    }

    /// The expiry in UNIX seconds (UTC). `0`, the default, asks Apple to deliver once or
    /// drop the notification, never to store it.
    public var expiry: UInt32 {
        get { withState { $0.expiry } }
        set { withState { $0.expiry = newValue } }
    }

    /// The priority: `10` (the default) delivers immediately; `5` lets the device save
    /// power. Only command 2 carries it in the binary protocol. Through the HTTP/2 provider
    /// API a ``PushType/background`` push goes with 5 when this says 10, as Apple requires.
    public var priority: UInt8 {
        get { withState { $0.priority } }
        set { withState { $0.priority = newValue } }
    }

    /// How many times the notification may be resent after an error made it unsure:
    /// `-1` (the default) is unlimited, `0` never resends, `n` resends up to n times.
    public var retryLimit: Int {
        get { withState { $0.retryLimit } }
        set { withState { $0.retryLimit = newValue } }
    }

    /// The payload's byte encoding: ``PayloadEncoding/utf8`` (default) or
    /// ``PayloadEncoding/ucs2``.
    public var encoding: PayloadEncoding {
        get { withState { $0.encoding } }
        set { withState { $0.encoding = newValue } }
    }

    /// Whether ``trim(toLength:)`` cuts the alert text back to the end of a word.
    public var truncateAtWordEnd: Bool {
        get { withState { $0.truncateAtWordEnd } }
        set { withState { $0.truncateAtWordEnd = newValue } }
    }

    /// The device the notification is for, as node-apn's deprecated `device` property
    /// (set by ``clone(device:)``). Connections take their recipients separately.
    public var device: Device? {
        get { withState { $0.device } }
        set { withState { $0.device = newValue } }
    }
}
