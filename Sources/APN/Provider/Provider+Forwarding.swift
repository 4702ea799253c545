import APNSupport
import Synchronization
import Foundation

/// A notification in the HTTP/2 API's own terms, its payload as bytes sent exactly as given:
/// what the binary-protocol bridge forwards. Re-encoding a client's JSON through
/// ``Notification`` would change its bytes (spacing, number text), and a binary client
/// chose them.
@_spi(APNBridge) public struct ForwardedNotification: Sendable {
    /// The device the request's `:path` names.
    public var device: Device
    /// The request body, as it is.
    public var payload: [UInt8]
    /// `apns-push-type`.
    public var pushType: PushType
    /// `apns-priority`: 10, 5 or 1.
    public var priority: Int
    /// `apns-expiration`, UNIX seconds; 0 means deliver once, never store.
    public var expiry: UInt32
    /// `apns-topic`, else ``Provider/Options/topic``.
    public var topic: String?

    /// Creates one. Inlinable: called from the bridge's module for every notification, it
    /// copied the value it built and destroyed the original (a retain and a release of each
    /// buffer).
    @inlinable
    public init(device: Device, payload: [UInt8], pushType: PushType, priority: Int, expiry: UInt32, topic: String?) {
        self.device = device
        self.payload = payload
        self.pushType = pushType
        self.priority = priority
        self.expiry = expiry
        self.topic = topic
    }
}

/// A forwarded notification as its parts (``ForwardedNotification``'s fields): what
/// ``Provider/forward(count:_:completion:)`` takes, each part moved into its request.
@_spi(APNBridge) public typealias ForwardedParts = (
    device: Device, payload: [UInt8], pushType: PushType, priority: Int, expiry: UInt32, topic: String?
)

extension Provider {
    /// Sends each notification with its own payload, as many as the connections allow at
    /// once, and calls `completion(index, response)` exactly once for each, in the order the
    /// answers come. One that cannot be sent as it is (a payload over the limit, a priority
    /// other than 10, 5 or 1, no topic where one is needed) is answered at once with
    /// ``ProviderError/Code/invalidNotification``, on the caller's thread; every other
    /// answer comes **on the provider's I/O thread**: `completion` must be quick and must
    /// not block (the bridge puts the answer in its connection's inbox and wakes it).
    @_spi(APNBridge) public func forward(
        _ notifications: [ForwardedNotification], completion: @escaping @Sendable (Int, ProviderResponse) -> Void
    ) {
        forward(count: notifications.count, { index in
            let notification = notifications[index]
            return (
                notification.device, notification.payload, notification.pushType, notification.priority,
                notification.expiry, notification.topic
            )
        }, completion: completion)
    }

    /// ``forward(_:completion:)`` of the `count` notifications `notification(0)`, … given as
    /// their parts, each asked for once, in order. A tuple's parts move into the request, where
    /// a ``ForwardedNotification``'s were copied out of an array of them (the bridge built
    /// one a batch) and released with it.
    @_spi(APNBridge) public func forward(
        count: Int, _ notification: (Int) -> ForwardedParts,
        completion: @escaping @Sendable (Int, ProviderResponse) -> Void
    ) {
        var submissions: [ProviderSubmission] = []
        submissions.reserveCapacity(min(count, Self.submissionBatch))
        let target = ProviderReplyTarget(sink: completion)
        // The templates used last: a bridge's notifications mostly share their header
        // fields, so their headers are built and laid out once, not per notification.
        var recent = forwardTemplates.withLock { $0 }
        let defaultTopic = options.topic
        for index in 0..<count {
            let (device, payload, pushType, priority, expiry, ownTopic) = notification(index)
            let topic = ownTopic ?? defaultTopic
            let request: ProviderRequest
            do throws(ProviderError) {
                try ProviderRequest.checkPayload(size: payload.count, pushType: pushType)
                let template: ProviderRequest.Template
                // Compared field by field: a key made for the search retained its topic.
                if let found = recent.first(where: {
                    $0.forwards(pushType: pushType, priority: priority, expiry: expiry, topic: topic)
                }) {
                    template = found
                } else {
                    template = try ProviderRequest.Template(
                        forwarding: ProviderRequest.ForwardKey(
                            pushType: pushType, priority: priority, expiry: expiry, topic: topic),
                        authority: options.host, requiresTopic: requiresTopic)
                    recent.insert(template, at: 0)
                    if recent.count > Self.forwardTemplateCount { recent.removeLast() }
                }
                request = template.request(to: device, payload: payload)
            } catch {
                completion(
                    index,
                    ProviderResponse(device: device, error: error, status: nil, apnsID: nil, uniqueID: nil, attempts: 0))
                continue
            }
            submissions.append(ProviderSubmission(request: request, index: index))
            if submissions.count == Self.submissionBatch {
                inbox.post(.send(submissions, target))
                submissions.removeAll(keepingCapacity: true)
            }
        }
        forwardTemplates.withLock { $0 = recent }
        if !submissions.isEmpty { inbox.post(.send(submissions, target)) }
    }

    /// How many templates ``forward(_:completion:)`` keeps: a tenant's few combinations of
    /// push type, priority, expiry and topic (an expiry that moves with the clock makes a
    /// new one each second).
    static let forwardTemplateCount = 4
}
