/// What one push handed to a ``Connection``: a notification for one device
/// (`push(_:to:outcome:)`), or for many (`push(_:to: [Device])`). It is the session's tag
/// object; with the tag's index it names one notification, so every report leads back here.
///
/// One record for a whole array of devices, rather than one per device, because the record
/// is allocated by the caller's thread and freed by the I/O thread: per device that was a
/// malloc, a free and a reference count for each of its fields on every notification.
final class PushRecord: Sendable {
    let notification: Notification
    /// The devices of a batch, in push order; empty for a single push (see `device`).
    private let devices: [Device]
    /// The device of a single push: nil for a batch, and for a single push refused for
    /// having none (no device, a bad token).
    private let single: Device?
    let payload: [UInt8]
    let expiry: UInt32
    let priority: UInt8
    let retryLimit: Int
    /// Called with each notification's index and outcome on the callback queue, when given.
    let completion: Completion?
    /// A caller awaits the outcome (``Connection/send(_:to:)``): confirmed by a marker when
    /// nothing is queued behind it.
    let isAwaited: Bool

    /// What is told each outcome: the notification's index in the record, and the outcome.
    typealias Completion = @Sendable (Int, NotificationOutcome) -> Void

    /// One notification for `device`; `isAwaited` when a caller awaits its outcome.
    convenience init(
        notification: Notification, device: Device?, delivery: Notification.Delivery,
        completion: (@Sendable (NotificationOutcome) -> Void)?, isAwaited: Bool = false
    ) {
        var each: Completion?
        if let completion { each = { _, outcome in completion(outcome) } }
        self.init(
            notification: notification, single: device, devices: [], delivery: delivery, completion: each,
            isAwaited: isAwaited)
    }

    /// One notification for each of `devices` (not empty), at indices `0..<devices.count`.
    convenience init(
        notification: Notification, devices: [Device], delivery: Notification.Delivery, completion: Completion? = nil
    ) {
        precondition(!devices.isEmpty, "a batch record needs devices")
        self.init(notification: notification, single: nil, devices: devices, delivery: delivery, completion: completion)
    }

    private init(
        notification: Notification, single: Device?, devices: [Device], delivery: Notification.Delivery,
        completion: Completion?, isAwaited: Bool = false
    ) {
        self.notification = notification
        self.devices = devices
        self.single = single
        self.payload = delivery.payload
        self.expiry = delivery.expiry
        self.priority = delivery.priority
        self.retryLimit = delivery.retryLimit
        self.completion = completion
        self.isAwaited = isAwaited
    }

    /// The number of notifications: one per device of a batch, else one.
    var count: Int { devices.isEmpty ? 1 : devices.count }

    /// The device of notification `index` (nil for a single push without one).
    func device(at index: UInt32) -> Device? {
        devices.isEmpty ? single : devices[Int(index)]
    }

    /// The token of notification `index` (empty without a device); read from the device
    /// rather than stored again, which would cost a reference count per notification.
    func token(at index: UInt32) -> [UInt8] {
        devices.isEmpty ? single?.token ?? [] : devices[Int(index)].token
    }
}
