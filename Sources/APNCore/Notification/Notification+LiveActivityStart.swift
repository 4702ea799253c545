// iOS 18's keys for a Live Activity started by a push, and the rules Apple states for such
// a start ("Starting and updating Live Activities with ActivityKit push notifications"):
// `event` "start" needs an `alert`, `attributes-type` and `attributes`.
extension Notification {
    /// `input-push-token: 1` (Live Activity start, iOS 18): the started activity gets an
    /// update push token of its own, which the app receives when the system wakes it.
    /// Written only when true.
    public var inputPushToken: Bool {
        get { withState { $0.inputPushToken } }
        set { withState { $0.inputPushToken = newValue } }
    }

    /// `input-push-channel` (Live Activity start, iOS 18): the broadcast channel the started
    /// activity subscribes to, as its channel ID (base64). The channel must exist; a device
    /// before iOS 18 does not start the activity at all.
    public var inputPushChannel: String? {
        get { withState { $0.inputPushChannel } }
        set { withState { $0.inputPushChannel = newValue } }
    }

    /// Sets ``inputPushToken``.
    @discardableResult
    public func setInputPushToken(_ inputPushToken: Bool) -> Self {
        self.inputPushToken = inputPushToken
        return self
    }

    /// Sets ``inputPushChannel``.
    @discardableResult
    public func setInputPushChannel(_ inputPushChannel: String?) -> Self {
        self.inputPushChannel = inputPushChannel
        return self
    }

    /// What a Live Activity start lacks by Apple's rules, or nil: for ``event`` "start",
    /// an alert, ``attributesType`` and ``attributes`` are required. Apple documents no
    /// answer for a start without them (a device may simply not start the activity), so the
    /// provider refuses to send one (``APNError/Code/invalidValue``).
    package func liveActivityStartProblem() -> String? {
        withState { state in
            guard state.event == "start" else { return nil }
            var missing: [String] = []
            if state.alert == nil { missing.append("an alert") }
            if state.attributesType == nil { missing.append("attributes-type") }
            if state.attributes == nil { missing.append("attributes") }
            guard !missing.isEmpty else { return nil }
            return "a Live Activity start (event \"start\") needs " + missing.joined(separator: ", ")
                + " (Apple: \"Starting and updating Live Activities with ActivityKit push notifications\")"
        }
    }
}
