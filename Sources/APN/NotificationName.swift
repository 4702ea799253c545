// `Notification` is the push notification (`APNCore`), not Foundation's: inside this module,
// and as `APN.Notification` for a caller that also imports Foundation.
public typealias Notification = APNCore.Notification
