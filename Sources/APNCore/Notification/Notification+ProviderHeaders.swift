public import Foundation

extension Notification {
    /// `apns-topic`: the app's bundle id (with the suffix some push types need, e.g.
    /// `.voip`). `nil` uses ``Provider/Options/topic``. Only the HTTP/2 provider API sends
    /// it; the binary protocol takes the topic from the certificate.
    public var topic: String? {
        get { withState { $0.topic } }
        set { withState { $0.topic = newValue } }
    }

    /// `apns-push-type`; `nil` sends ``PushType/alert`` (``PushType/background`` when the
    /// notification is ``isSilent``). Only the HTTP/2 provider API sends it.
    public var pushType: PushType? {
        get { withState { $0.pushType } }
        set { withState { $0.pushType = newValue } }
    }

    /// `apns-collapse-id`: notifications with the same id replace each other on the device.
    /// At most 64 bytes of UTF-8. Only the HTTP/2 provider API sends it.
    public var collapseID: String? {
        get { withState { $0.collapseID } }
        set { withState { $0.collapseID = newValue } }
    }

    /// `apns-id`: the request's identifier, which Apple answers back; `nil` lets Apple assign
    /// one. Only the HTTP/2 provider API sends it.
    public var apnsID: UUID? {
        get { withState { $0.apnsID } }
        set { withState { $0.apnsID = newValue } }
    }

    /// Sets ``topic``.
    @discardableResult
    public func setTopic(_ topic: String?) -> Self {
        self.topic = topic
        return self
    }

    /// Sets ``pushType``.
    @discardableResult
    public func setPushType(_ pushType: PushType?) -> Self {
        self.pushType = pushType
        return self
    }

    /// Sets ``collapseID``.
    @discardableResult
    public func setCollapseID(_ collapseID: String?) -> Self {
        self.collapseID = collapseID
        return self
    }

    /// Sets ``apnsID``.
    @discardableResult
    public func setAPNSID(_ apnsID: UUID?) -> Self {
        self.apnsID = apnsID
        return self
    }

    /// A silent (background) notification: `content-available: 1` and nothing else in
    /// `aps`, push type ``PushType/background`` and priority 5, as Apple requires for
    /// background updates (apns2's `SilentNotification`). Custom keys may be added.
    public static func silent(_ custom: JSONObject = JSONObject()) throws(APNError) -> Notification {
        try Notification(payload: custom).setContentAvailable(true).setPushType(.background).setPriority(5)
    }

    /// Whether the payload's `aps` asks only for a background update: `content-available`
    /// set and no alert, badge or sound.
    var isSilent: Bool {
        withState { $0.contentAvailable && $0.alert == nil && $0.badge == nil && $0.sound == nil }
    }
}
