import APNSupport
import Synchronization

/// A push notification in node-apn 1.x's vocabulary: the payload (custom keys plus the
/// `aps` dictionary) and how to deliver it (expiry, priority, retry limit).
///
/// A class, because identity matters: the connection hands the same object back in its
/// callbacks and events. Its state lives in a `Mutex`, so it can be shared across threads
/// and read and changed from any of them.
///
/// ```swift
/// let note = try Notification(payload: ["messageFrom": "Caroline"])
///     .setBadge(3)
///     .setSound("ping.aiff")
///     .setAlertText("You have a new message")
/// note.payloadString()
/// // {"messageFrom":"Caroline","aps":{"badge":3,"sound":"ping.aiff","alert":"You have a new message"}}
/// ```
///
/// Every property has a chainable `set…` method returning the notification. The payload is
/// compiled once and cached; any change to a payload property drops the cache, so the
/// bytes sent are always the current ones (node-apn 1.3–1.7.2 kept sending stale JSON).
public final class Notification: Sendable, CustomStringConvertible {
    let state: Lock<NotificationState>

    /// An empty notification: payload `{}`, expiry 0, priority 10, unlimited retries.
    public init() {
        state = Lock(NotificationState())
    }

    /// A notification whose top-level custom keys are `payload`'s, in its order (node-apn's
    /// `new Notification(payload)`). A custom `aps` object is merged with the notification's
    /// own aps keys, as ``setPayload(_:)`` describes.
    ///
    /// - Throws: ``APNError/Code/reservedPayloadKey`` if `payload`'s `aps` is neither an
    ///   object nor `null`.
    public convenience init(payload: JSONObject) throws(APNError) {
        self.init()
        try setPayload(payload)
    }

    init(state: NotificationState) {
        self.state = Lock(state)
    }

    /// Runs `body` with exclusive access to the state.
    package func withState<Result: Sendable>(_ body: (inout NotificationState) -> Result) -> Result {
        state.withLock { body(&$0) }
    }

    /// The payload bytes in ``encoding``, compiled on first use and cached until a payload
    /// property changes.
    public func compiledPayload() -> [UInt8] {
        withState { $0.compiledPayload() }
    }

    /// The payload as text, for logs and tests.
    public func payloadString() -> String {
        withState { $0.encoding.decode($0.compiledPayload()) }
    }

    /// The payload's size in bytes, in ``encoding``: the number the gateway checks.
    public func length() -> Int {
        withState { $0.compiledPayload().count }
    }

    /// The payload as text.
    public var description: String {
        payloadString()
    }

    /// A copy of this notification for another device (node-apn's `clone(device)`).
    ///
    /// Every property is copied, including ``retryLimit`` (node-apn forgot it). The
    /// payload is compiled first if needed and the copy shares the compiled bytes rather
    /// than compiling them again; changing either notification afterwards affects only that
    /// one.
    public func clone(device: Device) -> Notification {
        var copy = withState { state in
            _ = state.compiledPayload()
            return state
        }
        copy.device = device
        return Notification(state: copy)
    }
}

/// ``Notification`` under a name Foundation does not also use: with `import Foundation`
/// beside `import APN`, plain `Notification` is ambiguous (Foundation has one too), and
/// `PushNotification` (or `APN.Notification`) says which.
public typealias PushNotification = Notification
