// node-apn's alert setters. All but `setAlertText` need the dictionary form: a string
// alert becomes `{"body": string}` first, and no alert becomes `{}` (node-apn's
// `prepareAlert`), even when the setter then removes a key; new keys are appended in the
// order they are set.
extension Notification {
    /// Sets the alert text: the whole alert while it is a string (or unset), the
    /// dictionary's `body` once it is a dictionary.
    @discardableResult
    public func setAlertText(_ text: String) -> Self {
        withState { $0.setAlertText(text) }
        return self
    }

    /// Sets the alert's `title`.
    @discardableResult
    public func setAlertTitle(_ title: String) -> Self {
        withState { $0.updateAlertDictionary { $0.title = title } }
        return self
    }

    /// Sets the alert's `subtitle`.
    @discardableResult
    public func setAlertSubtitle(_ subtitle: String) -> Self {
        withState { $0.updateAlertDictionary { $0.subtitle = subtitle } }
        return self
    }

    /// Sets the alert's `action`.
    @discardableResult
    public func setAlertAction(_ action: String) -> Self {
        withState { $0.updateAlertDictionary { $0.action = action } }
        return self
    }

    /// Sets the alert's `action-loc-key`. `nil` writes `"action-loc-key":null`, which asks
    /// for an alert with a single OK button, as node-apn's `setActionLocKey(null)` did.
    @discardableResult
    public func setActionLocKey(_ key: String?) -> Self {
        withState { $0.updateAlertDictionary { $0["action-loc-key"] = key.map(JSONValue.string) ?? .null } }
        return self
    }

    /// Sets the alert's `loc-key`; `nil` or an empty string removes the key. Either way the
    /// alert becomes a dictionary: `"Hello"` then `setLocKey(nil)` is `{"body":"Hello"}`.
    @discardableResult
    public func setLocKey(_ key: String?) -> Self {
        withState { state in
            if let key, !key.isEmpty {
                state.updateAlertDictionary { $0.locKey = key }
            } else {
                state.removeAlertKey("loc-key")
            }
        }
        return self
    }

    /// Sets the alert's `loc-args`; `nil` removes the key (an empty array is written). Either
    /// way the alert becomes a dictionary.
    @discardableResult
    public func setLocArgs(_ arguments: [String]?) -> Self {
        withState { state in
            if let arguments {
                state.updateAlertDictionary { $0.locArgs = arguments }
            } else {
                state.removeAlertKey("loc-args")
            }
        }
        return self
    }

    /// Sets the alert's `title-loc-key`.
    @discardableResult
    public func setTitleLocKey(_ key: String) -> Self {
        withState { $0.updateAlertDictionary { $0.titleLocKey = key } }
        return self
    }

    /// Sets the alert's `title-loc-args`.
    @discardableResult
    public func setTitleLocArgs(_ arguments: [String]) -> Self {
        withState { $0.updateAlertDictionary { $0.titleLocArgs = arguments } }
        return self
    }

    /// Sets the alert's `subtitle-loc-key`.
    @discardableResult
    public func setSubtitleLocKey(_ key: String) -> Self {
        withState { $0.updateAlertDictionary { $0.subtitleLocKey = key } }
        return self
    }

    /// Sets the alert's `subtitle-loc-args`.
    @discardableResult
    public func setSubtitleLocArgs(_ arguments: [String]) -> Self {
        withState { $0.updateAlertDictionary { $0.subtitleLocArgs = arguments } }
        return self
    }

    /// Sets the alert's `launch-image`; `nil` or an empty string removes the key. Either way
    /// the alert becomes a dictionary: on an empty notification, `setLaunchImage(nil)` gives
    /// `{"aps":{"alert":{}}}`, as in node-apn.
    @discardableResult
    public func setLaunchImage(_ image: String?) -> Self {
        withState { state in
            if let image, !image.isEmpty {
                state.updateAlertDictionary { $0.launchImage = image }
            } else {
                state.removeAlertKey("launch-image")
            }
        }
        return self
    }
}
