import APNHTTP2
import APNWire
import Foundation

/// The requests of broadcast push and channel management as ``ProviderRequest/Template``
/// exchanges, checked before anything is sent, and what their answers carry read back.
/// Apple's pages: "Sending channel management requests to APNs", "Sending broadcast push
/// notification requests to APNs" (docs/research/BROADCAST-API.md).
enum BroadcastRequests {
    /// The largest broadcast payload, in bytes (413 `PayloadTooLarge` past it).
    static let payloadLimit = 5_120
    /// `apns-push-type` of every broadcast, as Apple's samples write it.
    static let pushType = "liveactivity"
    /// The only `push-type` of a channel, as Apple's create body writes it.
    static let channelPushType = "LiveActivity"

    // MARK: Channel management

    /// `POST /1/apps/<bundle id>/channels` with the policy: a channel created.
    static func create(
        _ policy: MessageStoragePolicy, bundleID: String, requestID: UUID, authority: String
    ) throws(ProviderError) -> ProviderRequest.Template {
        let body = #"{"message-storage-policy":\#(policy.rawValue),"push-type":"\#(channelPushType)"}"#
        // Not sent again after a 5xx: Apple may have made the channel, and a second create
        // makes a second one.
        return try ProviderRequest.Template(
            exchange: "POST", path: channelsPath(bundleID), authority: authority,
            fields: [HTTP2Header("apns-request-id", requestID.apnsText, isIndexable: false)], body: Array(body.utf8),
            retriesServerErrors: false)
    }

    /// `GET` or `DELETE /1/apps/<bundle id>/channels` naming channel `id`.
    static func channel(
        _ method: String, id: String, bundleID: String, requestID: UUID, authority: String
    ) throws(ProviderError) -> ProviderRequest.Template {
        try checkChannelID(id)
        return try ProviderRequest.Template(
            exchange: method, path: channelsPath(bundleID), authority: authority,
            fields: [
                HTTP2Header("apns-request-id", requestID.apnsText, isIndexable: false),
                HTTP2Header("apns-channel-id", id, isIndexable: false),
            ], body: [], retriesServerErrors: true)
    }

    /// `GET /1/apps/<bundle id>/all-channels`.
    static func list(bundleID: String, requestID: UUID, authority: String) throws(ProviderError) -> ProviderRequest.Template {
        try ProviderRequest.Template(
            exchange: "GET", path: "/1/apps/\(bundleID)/all-channels", authority: authority,
            fields: [HTTP2Header("apns-request-id", requestID.apnsText, isIndexable: false)], body: [],
            retriesServerErrors: true)
    }

    private static func channelsPath(_ bundleID: String) -> String { "/1/apps/\(bundleID)/channels" }

    // MARK: Broadcast

    /// `POST /4/broadcasts/apps/<bundle id>` carrying `notification` to `channel`, with
    /// Apple's rules checked: a Live Activity push (no other push type), not a start (a
    /// broadcast cannot start an activity), expiration 0 on a channel known to store
    /// nothing, priority 10, 5 or 1, at most 5,120 bytes of UTF-8 JSON.
    ///
    /// - Throws: ``ProviderError/Code/invalidNotification``, naming Apple's reason.
    static func broadcast(
        _ notification: Notification, to channel: BroadcastChannel, bundleID: String, authority: String
    ) throws(ProviderError) -> ProviderRequest.Template {
        let snapshot = notification.withState { state in
            (
                payload: state.compiledPayload(), priority: Int(state.priority), expiry: state.expiry,
                pushType: state.pushType, apnsID: state.apnsID, utf8: state.encoding == .utf8
            )
        }
        try checkChannelID(channel.id)
        guard snapshot.utf8 else {
            throw .invalid(.invalidValue("a broadcast's payload is UTF-8 JSON; this notification is UCS-2"))
        }
        if let type = snapshot.pushType, type != .liveactivity {
            throw .invalid(
                .invalidValue(
                    "a broadcast is a Live Activity push; this notification's push type is \(type.rawValue) (InvalidPushType)"))
        }
        if notification.event == "start" {
            throw .invalid(
                .invalidValue(
                    "a broadcast cannot start a Live Activity (Apple: broadcasts update and end them); send the start to a push-to-start token"))
        }
        if channel.storagePolicy == .noMessageStored && snapshot.expiry != 0 {
            throw .invalid(
                .invalidValue(
                    "channel \(channel.id) stores no message: a broadcast to it must have expiration 0, not \(snapshot.expiry) (BadExpirationDate)"))
        }
        guard [10, 5, 1].contains(snapshot.priority) else {
            throw .invalid(.invalidValue("apns-priority must be 10, 5 or 1, not \(snapshot.priority) (BadPriority)"))
        }
        if snapshot.payload.count > payloadLimit {
            throw .invalid(
                .payloadTooLarge(
                    size: snapshot.payload.count, limit: payloadLimit, encoding: "utf8", context: "a broadcast"))
        }
        return try ProviderRequest.Template(
            exchange: "POST", path: "/4/broadcasts/apps/\(bundleID)", authority: authority,
            fields: [
                HTTP2Header("apns-request-id", (snapshot.apnsID ?? UUID()).apnsText, isIndexable: false),
                HTTP2Header("apns-channel-id", channel.id),
                HTTP2Header("apns-push-type", pushType),
                HTTP2Header("apns-priority", String(snapshot.priority)),
                HTTP2Header("apns-expiration", String(snapshot.expiry)),
            ],
            // A broadcast Apple answered with a server error may have gone to every device on
            // the channel: not sent again (the caller sees `mayHaveBeenDelivered`).
            body: snapshot.payload, retriesServerErrors: false)
    }

    // MARK: Checks

    /// The bundle id a request names: `given`, else `topic` without its push-type suffix
    /// (`com.example.app.push-type.liveactivity` names `com.example.app`).
    ///
    /// - Throws: ``ProviderError/Code/invalidNotification`` without one, for one with a
    ///   push-type suffix (Apple's `TopicDisallowed`), or one that cannot be a path segment.
    static func bundleID(_ given: String?, topic: String?) throws(ProviderError) -> String {
        let bundleID: String
        if let given {
            guard !given.contains(".push-type.") else {
                throw .invalid(
                    .invalidValue("the bundle id \(String(reflecting: given)) has a push-type suffix (TopicDisallowed)"))
            }
            bundleID = given
        } else if let topic {
            bundleID = topic.range(of: ".push-type.").map { String(topic[..<$0.lowerBound]) } ?? topic
        } else {
            throw .invalid(
                .invalidValue("name the app's bundle id: pass bundleID, or set Provider.Options.topic"))
        }
        let allowed = bundleID.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: "_"):
                true
            default: false
            }
        }
        guard !bundleID.isEmpty, allowed else {
            throw .invalid(
                .invalidValue(
                    "the bundle id \(String(reflecting: bundleID)) is not one: letters, digits, '.', '-' and '_' only"))
        }
        return bundleID
    }

    /// Throws unless `id` is a well-formed channel id (Apple's `BadChannelId`).
    static func checkChannelID(_ id: String) throws(ProviderError) {
        guard BroadcastChannel.isWellFormed(id) else {
            throw .invalid(
                .invalidValue("the channel id \(String(reflecting: id)) is not base64 (BadChannelId)"))
        }
    }

    // MARK: Answers

    /// A channel's configuration from a read's body: `{"message-storage-policy": 0|1,
    /// "push-type": "LiveActivity"}`.
    static func storagePolicy(fromReadBody body: [UInt8]) throws(ProviderError) -> MessageStoragePolicy {
        let object = try answerObject(body, what: "a channel read")
        guard case .number(let value)? = object["message-storage-policy"], let policy = MessageStoragePolicy(rawValue: Int(exactly: value) ?? -1)
        else {
            throw ProviderError(
                code: .protocolError, message: "a channel read answered no message-storage-policy of 0 or 1")
        }
        return policy
    }

    /// The ids in a list's body: `{"channels": ["…", …]}`.
    static func channelIDs(fromListBody body: [UInt8]) throws(ProviderError) -> [String] {
        // Apple's prose says the body may be empty when there is no channel.
        if body.isEmpty { return [] }
        let object = try answerObject(body, what: "a channel list")
        guard case .array(let values)? = object["channels"] else {
            throw ProviderError(code: .protocolError, message: "a channel list answered no \"channels\" array")
        }
        var ids: [String] = []
        ids.reserveCapacity(values.count)
        for value in values {
            guard case .string(let id) = value else {
                throw ProviderError(code: .protocolError, message: "a channel list holds a channel id that is not a string")
            }
            ids.append(id)
        }
        return ids
    }

    private static func answerObject(_ body: [UInt8], what: String) throws(ProviderError) -> JSONObject {
        do throws(JSONParseError) {
            return try JSONParser(maximumDepth: 4, maximumSize: max(body.count, 1)).parseObject(bytes: body)
        } catch {
            throw ProviderError(code: .protocolError, message: "\(what) answered a body that is not a JSON object: \(error)")
        }
    }
}
