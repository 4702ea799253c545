import APNHTTP2
import APNWire
import Foundation

/// Apple's validation of broadcast push (`POST /4/broadcasts/apps/<bundle id>`) and channel
/// management (`/1/apps/<bundle id>/channels`, `/1/apps/<bundle id>/all-channels`)
/// requests, in the order the gateway applies it (Apple documents none; the first failure
/// answers). What depends on the channels that exist (``ChannelRegistry``) and on the faults
/// is judged after, in the ledger.
///
/// | check | refusal |
/// |---|---|
/// | `:path` is one of the three, with a bundle id | 404 BadPath |
/// | `:method` is one the path takes (POST, GET, DELETE on `channels`; GET on `all-channels`; POST on `broadcasts`) | 405 MethodNotAllowed |
/// | no `apns-*` header (or `authorization`) repeated | 400 DuplicateHeaders |
/// | a client certificate (not for the other environment only), or a good provider token | 403 BadCertificateEnvironment, MissingProviderToken, InvalidProviderToken, ExpiredProviderToken; 429 TooManyProviderTokenUpdates |
/// | the bundle id has no `.push-type.` suffix | 400 TopicDisallowed |
/// | the certificate's topics, or the team's (when listed), include the bundle id | 403 TopicMismatch |
/// | `apns-request-id`, when sent, is a canonical UUID | 400 BadMessageId |
/// | create: the body is a JSON object | 400 BadRequestPayload |
/// | create: only `message-storage-policy` (0 or 1) and `push-type` (`LiveActivity`, any case), both present | 400 BadRequestParams |
/// | read, delete, broadcast: `apns-channel-id` sent | 400 MissingChannelId |
/// | read, delete, broadcast: it is base64 of at most ``channelIDLimit`` characters | 400 BadChannelId |
/// | broadcast: `apns-push-type` sent | 400 MissingPushType |
/// | broadcast: it is `LiveActivity` (any case) | 400 InvalidPushType |
/// | broadcast: `apns-priority` sent, and 10, 5 or 1 | 400 BadPriority |
/// | broadcast: `apns-expiration` sent, a non-negative integer | 400 BadExpirationDate |
/// | broadcast: `apns-id`, when sent, is a canonical UUID | 400 BadMessageId |
/// | broadcast: the payload is not empty | 400 PayloadEmpty |
/// | broadcast: the payload is within 5,120 bytes | 413 PayloadTooLarge |
/// | broadcast: the payload is a JSON object | 400 BadRequestPayload |
extension RequestValidator {
    /// The longest channel id accepted, in base64 characters (Apple gives no number).
    static let channelIDLimit = 256
    /// Apple's one push type for channels and broadcasts.
    static let liveActivity = "LiveActivity"

    /// Whether `path` is for broadcast push or channel management rather than a device:
    /// `/1/…` or `/4/…`, told by its second byte (`/3/device/…` is not).
    @inline(__always)
    static func isBroadcastPath(_ path: UnsafeBufferPointer<UInt8>) -> Bool {
        path.count > 1 && (path[1] == UInt8(ascii: "1") || path[1] == UInt8(ascii: "4"))
    }

    /// Validates a broadcast or channel management request; `ids` makes the
    /// `apns-request-id` of a request that sent no valid one.
    func checkBroadcast(
        _ fields: RequestHeaders, body: [UInt8], authenticator: inout ConnectionAuthenticator, ids: inout UUIDSequence,
        now: Double
    ) -> RequestVerdict {
        var requestID: String {
            if let sent = fields.requestID, UUIDText.isCanonical(sent) { return sent }
            return ids.next()
        }
        do throws(BroadcastRefused) {
            let (bundleID, operation, authentication) = try validateBroadcast(
                fields, body: body, authenticator: &authenticator, now: now)
            return .broadcast(BroadcastRequest(
                bundleID: bundleID, requestID: requestID, authentication: authentication, operation: operation))
        } catch {
            return .broadcastRefused(
                BroadcastResponse(refusal: HTTP2MockGateway.Refusal(reason: error.reason), requestID: requestID))
        }
    }

    /// Why broadcast validation stopped.
    private struct BroadcastRefused: Error {
        let reason: ProviderReason

        init(_ reason: ProviderReason) {
            self.reason = reason
        }
    }

    /// The paths of broadcast push and channel management.
    private enum Route {
        case channels, allChannels, broadcasts
    }

    private static let routes: [(prefix: String, suffix: String, route: Route)] = [
        ("/1/apps/", "/channels", .channels), ("/1/apps/", "/all-channels", .allChannels),
        ("/4/broadcasts/apps/", "", .broadcasts),
    ]

    /// The route and bundle id of `path`, if it is one of the three.
    private static func route(_ path: String) -> (Route, bundleID: String)? {
        for (prefix, suffix, route) in routes where path.hasPrefix(prefix) && path.hasSuffix(suffix) {
            let bundleID = path.dropFirst(prefix.count).dropLast(suffix.count)
            guard path.count >= prefix.count + suffix.count, !bundleID.isEmpty,
                !bundleID.contains("/"), !bundleID.contains("?")
            else { continue }
            return (route, String(bundleID))
        }
        return nil
    }

    private func validateBroadcast(
        _ fields: RequestHeaders, body: [UInt8], authenticator: inout ConnectionAuthenticator, now: Double
    ) throws(BroadcastRefused) -> (String, BroadcastRequest.Operation, HTTP2MockGateway.Authentication) {
        guard let path = fields.path?.string, let (route, bundleID) = Self.route(path) else { throw BroadcastRefused(.badPath) }
        let method = fields.method ?? ""
        let allowed: [String] = switch route {
        case .channels: ["POST", "GET", "DELETE"]
        case .allChannels: ["GET"]
        case .broadcasts: ["POST"]
        }
        guard allowed.contains(method) else { throw BroadcastRefused(.methodNotAllowed) }
        guard !fields.hasDuplicates else { throw BroadcastRefused(.duplicateHeaders) }

        let authentication: HTTP2MockGateway.Authentication
        switch authenticator.authenticate(authorization: fields.authorization, now: now) {
        case .refused(let refusal): throw BroadcastRefused(refusal.reason)
        case .authenticated(let who): authentication = who
        }
        guard !bundleID.contains(".push-type.") else { throw BroadcastRefused(.topicDisallowed) }
        if let topics = authenticator.certificateTopics {
            guard topics.contains(bundleID) else { throw BroadcastRefused(.topicMismatch) }
        } else if let team = authenticator.teamID, let allowed = rules.teamTopics[team], !allowed.isEmpty,
            !allowed.contains(bundleID)
        {
            throw BroadcastRefused(.topicMismatch)
        }
        if let requestID = fields.requestID, !UUIDText.isCanonical(requestID) { throw BroadcastRefused(.badMessageID) }

        switch (route, method) {
        case (.channels, "POST"):
            let (policy, pushType) = try Self.channelConfiguration(body)
            return (bundleID, .create(messageStoragePolicy: policy, pushType: pushType), authentication)
        case (.channels, "GET"):
            return (bundleID, .read(try Self.channelID(fields)), authentication)
        case (.channels, _):
            return (bundleID, .delete(try Self.channelID(fields)), authentication)
        case (.allChannels, _):
            return (bundleID, .list, authentication)
        case (.broadcasts, _):
            return (bundleID, .send(try broadcast(fields, body: body)), authentication)
        }
    }

    /// The `apns-channel-id` of a request that needs one.
    private static func channelID(_ fields: RequestHeaders) throws(BroadcastRefused) -> String {
        guard let id = fields.channelID else { throw BroadcastRefused(.missingChannelID) }
        guard id.utf8.count <= channelIDLimit, isBase64(id) else { throw BroadcastRefused(.badChannelID) }
        return id
    }

    /// Whether `text` is standard base64 with its padding (Apple's ids are), not empty.
    static func isBase64(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count.isMultiple(of: 4) && Data(base64Encoded: text) != nil
    }

    /// The create body's storage policy and push type.
    private static func channelConfiguration(_ body: [UInt8]) throws(BroadcastRefused) -> (Int, String) {
        guard JSONObjectCheck.isObject(body),
            let configuration = try? JSONDecoder().decode(ChannelConfigurationBody.self, from: Data(body))
        else { throw BroadcastRefused(.badRequestPayload) }
        guard !configuration.hasUnknownKeys, let policy = configuration.messageStoragePolicy, policy == 0 || policy == 1,
            let pushType = configuration.pushType, pushType.lowercased() == liveActivity.lowercased()
        else { throw BroadcastRefused(.badRequestParams) }
        return (policy, liveActivity)
    }

    /// The fields of a broadcast.
    private func broadcast(_ fields: RequestHeaders, body: [UInt8]) throws(BroadcastRefused) -> BroadcastSend {
        let channelID = try Self.channelID(fields)
        guard let pushType = fields.pushType else { throw BroadcastRefused(.missingPushType) }
        guard pushType.lowercased() == Self.liveActivity.lowercased() else { throw BroadcastRefused(.invalidPushType) }
        guard let priority = fields.priority, priority == "10" || priority == "5" || priority == "1" else {
            throw BroadcastRefused(.badPriority)
        }
        guard let expirationText = fields.expiration, Self.isNonNegativeInteger(expirationText),
            let expiration = Int(expirationText)
        else { throw BroadcastRefused(.badExpirationDate) }
        if let apnsID = fields.apnsID, !UUIDText.isCanonical(apnsID) { throw BroadcastRefused(.badMessageID) }
        guard !body.isEmpty else { throw BroadcastRefused(.payloadEmpty) }
        guard body.count <= rules.broadcastPayloadLimit else { throw BroadcastRefused(.payloadTooLarge) }
        guard JSONObjectCheck.isObject(body) else { throw BroadcastRefused(.badRequestPayload) }
        return BroadcastSend(channelID: channelID, priority: Int(priority)!, expiration: expiration, payload: body)
    }
}

/// The body of a channel create request, as sent: the two keys Apple defines (each `nil`
/// when absent or of the wrong type), and whether any other came.
private struct ChannelConfigurationBody: Decodable {
    var messageStoragePolicy: Int?
    var pushType: String?
    var hasUnknownKeys = false

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        for key in container.allKeys {
            switch key.stringValue {
            case "message-storage-policy": messageStoragePolicy = try? container.decode(Int.self, forKey: key)
            case "push-type": pushType = try? container.decode(String.self, forKey: key)
            default: hasUnknownKeys = true
            }
        }
    }
}

/// A broadcast or channel management request that passed validation.
struct BroadcastRequest: Sendable {
    /// The bundle id from `:path`.
    var bundleID: String
    /// `apns-request-id`: the request's own, or one the gateway made.
    var requestID: String
    var authentication: HTTP2MockGateway.Authentication
    var operation: Operation

    /// What the request asks.
    enum Operation: Sendable, Equatable {
        /// `POST /1/apps/<bundle id>/channels`.
        case create(messageStoragePolicy: Int, pushType: String)
        /// `GET /1/apps/<bundle id>/channels` with this `apns-channel-id`.
        case read(String)
        /// `DELETE /1/apps/<bundle id>/channels` with this `apns-channel-id`.
        case delete(String)
        /// `GET /1/apps/<bundle id>/all-channels`.
        case list
        /// `POST /4/broadcasts/apps/<bundle id>`.
        case send(BroadcastSend)
    }
}

/// The fields of a broadcast that passed validation.
struct BroadcastSend: Sendable, Equatable {
    var channelID: String
    var priority: Int
    var expiration: Int
    var payload: [UInt8]
}
