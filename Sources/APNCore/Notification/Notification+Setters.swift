extension Notification {
    /// The custom key that holds the notification's own dictionary.
    static let apsKey = "aps"
    /// The key an MDM payload's push magic goes under.
    static let mdmKey = "mdm"

    /// Replaces all custom payload keys with `payload`'s.
    ///
    /// A custom `aps` object is kept, and the notification's own aps keys (badge, sound,
    /// alert, …) are merged into it when the payload is compiled, as node-apn does: a key it
    /// already has is replaced in place (unless the notification's value is one node-apn
    /// leaves out, such as an empty string), other keys are appended. `{"aps":{"badge":2,
    /// "foo":"keep"},"a":1}` with ``sound`` `"x"` compiles to
    /// `{"aps":{"badge":2,"foo":"keep","sound":"x"},"a":1}`.
    ///
    /// - Throws: ``APNError/Code/reservedPayloadKey`` if `payload`'s `aps` is neither an
    ///   object nor `null`; nothing changes then.
    @discardableResult
    public func setPayload(_ payload: JSONObject) throws(APNError) -> Self {
        if let aps = payload[Self.apsKey] {
            try Self.checkCustomAps(aps)
        }
        withState { $0.payload = payload }
        return self
    }

    /// Sets a custom top-level payload key; an existing key keeps its position.
    ///
    /// The key `aps` takes an object (merged with the notification's aps keys, see
    /// ``setPayload(_:)``) or `null` (the same as no custom `aps`).
    ///
    /// - Throws: ``APNError/Code/reservedPayloadKey`` for an `aps` value that is neither an
    ///   object nor `null`.
    @discardableResult
    public func setCustom(_ key: String, _ value: JSONValue) throws(APNError) -> Self {
        if key == Self.apsKey {
            try Self.checkCustomAps(value)
        }
        withState { $0.payload[key] = value }
        return self
    }

    /// A custom `aps` must be an object the notification's keys can be merged into.
    private static func checkCustomAps(_ value: JSONValue) throws(APNError) {
        switch value {
        case .object, .null:
            return
        case .string: throw .reservedPayloadKey(apsKey, found: "a string")
        case .number: throw .reservedPayloadKey(apsKey, found: "a number")
        case .bool: throw .reservedPayloadKey(apsKey, found: "a boolean")
        case .array: throw .reservedPayloadKey(apsKey, found: "an array")
        }
    }

    /// Removes a custom top-level payload key, if present.
    @discardableResult
    public func removeCustom(_ key: String) -> Self {
        withState { $0.payload[key] = nil }
        return self
    }

    /// Sets ``alert`` as a whole.
    @discardableResult
    public func setAlert(_ alert: AlertValue?) -> Self {
        self.alert = alert
        return self
    }

    /// Sets ``badge``; `0` is written, `nil` omits the key.
    @discardableResult
    public func setBadge(_ badge: Int?) -> Self {
        self.badge = badge
        return self
    }

    /// Sets ``sound``.
    @discardableResult
    public func setSound(_ sound: Sound?) -> Self {
        self.sound = sound
        return self
    }

    /// Sets ``contentAvailable``.
    @discardableResult
    public func setContentAvailable(_ contentAvailable: Bool) -> Self {
        self.contentAvailable = contentAvailable
        return self
    }

    /// Sets ``mutableContent``.
    @discardableResult
    public func setMutableContent(_ mutableContent: Bool) -> Self {
        self.mutableContent = mutableContent
        return self
    }

    /// Sets ``urlArgs``.
    @discardableResult
    public func setUrlArgs(_ urlArgs: [String]?) -> Self {
        self.urlArgs = urlArgs
        return self
    }

    /// Sets ``category``.
    @discardableResult
    public func setCategory(_ category: String?) -> Self {
        self.category = category
        return self
    }

    /// Sets ``mdm``.
    @discardableResult
    public func setMDM(_ mdm: String?) -> Self {
        self.mdm = mdm
        return self
    }

    /// Sets ``expiry`` in UNIX seconds; `0` means "deliver once or drop".
    @discardableResult
    public func setExpiry(_ expiry: UInt32) -> Self {
        self.expiry = expiry
        return self
    }

    /// Sets ``expiry`` from UNIX time in seconds, possibly fractional (as JavaScript's
    /// `Date.now() / 1000 + 3600`); the fraction is dropped.
    ///
    /// - Throws: ``APNError/Code/invalidValue`` if the time is not a number or lies outside
    ///   what the protocol's unsigned 32-bit field can carry (1970 to 2106).
    @discardableResult
    public func setExpiry(unixTime: Double) throws(APNError) -> Self {
        let seconds = unixTime.rounded(.towardZero)
        guard seconds >= 0, seconds <= Double(UInt32.max) else {
            throw .invalidValue(
                "expiry \(JSNumberFormat.string(unixTime)) is not a UNIX time between 0 and "
                    + "\(UInt32.max) seconds; use 0 for \"deliver once or drop\"")
        }
        self.expiry = UInt32(seconds)
        return self
    }

    /// Sets ``priority`` (10 immediate, 5 power-saving).
    @discardableResult
    public func setPriority(_ priority: UInt8) -> Self {
        self.priority = priority
        return self
    }

    /// Sets ``retryLimit`` (`-1` unlimited).
    @discardableResult
    public func setRetryLimit(_ retryLimit: Int) -> Self {
        self.retryLimit = retryLimit
        return self
    }

    /// Sets ``encoding``.
    @discardableResult
    public func setEncoding(_ encoding: PayloadEncoding) -> Self {
        self.encoding = encoding
        return self
    }

    /// Sets ``truncateAtWordEnd``.
    @discardableResult
    public func setTruncateAtWordEnd(_ truncateAtWordEnd: Bool) -> Self {
        self.truncateAtWordEnd = truncateAtWordEnd
        return self
    }
}
