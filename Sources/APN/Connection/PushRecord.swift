/// One notification for one device, as handed to a ``Connection``: what the session writes
/// and what the callbacks report. The session's tag, so every report leads back here.
final class PushRecord: Sendable {
    let notification: Notification
    let device: Device?
    /// The device's token (empty without a device); read from `device` rather than stored
    /// again, which would cost a reference count per notification for nothing.
    var token: [UInt8] { device?.token ?? [] }
    let payload: [UInt8]
    let expiry: UInt32
    let priority: UInt8
    let retryLimit: Int
    /// Called with the outcome on the callback queue, when given.
    let completion: (@Sendable (NotificationOutcome) -> Void)?

    init(
        notification: Notification, device: Device?, delivery: Notification.Delivery,
        completion: (@Sendable (NotificationOutcome) -> Void)?
    ) {
        self.notification = notification
        self.device = device
        self.payload = delivery.payload
        self.expiry = delivery.expiry
        self.priority = delivery.priority
        self.retryLimit = delivery.retryLimit
        self.completion = completion
    }
}
