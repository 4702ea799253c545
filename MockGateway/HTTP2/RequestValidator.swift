import APNHTTP2
import APNWire

/// Apple's validation of one request, in the order the gateway applies it (the first
/// failure answers):
///
/// | check | refusal |
/// |---|---|
/// | `:method` is POST | 405 MethodNotAllowed |
/// | `:path` is `/3/device/<token>` | 404 BadPath |
/// | the token is not empty | 400 MissingDeviceToken |
/// | no `apns-*` header (or `authorization`) repeated | 400 DuplicateHeaders |
/// | a client certificate (not for the other environment only), or a good provider token | 403 BadCertificateEnvironment, MissingProviderToken, InvalidProviderToken, ExpiredProviderToken; 429 TooManyProviderTokenUpdates |
/// | `apns-topic`, when sent, is not empty | 400 BadTopic |
/// | a topic: sent, or the certificate's only one | 400 MissingTopic |
/// | the topic is the certificate's, or allowed for the team | 400 TopicDisallowed |
/// | `apns-push-type` is one of Apple's | 400 InvalidPushType |
/// | `apns-priority` is 10, 5 or 1 | 400 BadPriority |
/// | `apns-expiration` is a non-negative integer | 400 BadExpirationDate |
/// | `apns-collapse-id` is at most 64 bytes | 400 BadCollapseId |
/// | `apns-id` is a canonical UUID | 400 BadMessageId |
/// | the token is hex of an accepted length (1 to 100 bytes) | 400 BadDeviceToken |
/// | the payload is not empty | 400 PayloadEmpty |
/// | the payload is within 4 KB (5 KB for VoIP) | 413 PayloadTooLarge |
/// | the payload is a JSON object | 400 PayloadEmpty (Apple documents no reason for this) |
/// | the token belongs to the topic | 400 DeviceTokenNotForTopic |
///
/// A `:path` of broadcast push or channel management (`/1/…`, `/4/…`) is validated by
/// ``checkBroadcast(_:body:authenticator:ids:now:)`` instead.
struct RequestValidator: Sendable {
    /// The limits and tables from the configuration.
    struct Rules: Sendable {
        /// For each token length in hex digits up to the longest accepted, whether it is
        /// accepted: an index per request rather than a hash.
        var acceptsTokenLength: [Bool]
        var payloadLimit: Int
        var voipPayloadLimit: Int
        var requiresJSONObjectPayload: Bool
        var teamTopics: [String: [String]]
        var deviceTopics: [String: String]
        var broadcastPayloadLimit: Int

        init(_ configuration: HTTP2MockGateway.Configuration) {
            let lengths = configuration.deviceTokenLengths.filter { $0 > 0 && $0.isMultiple(of: 2) }
            acceptsTokenLength = (0...(lengths.max() ?? 0)).map(lengths.contains)
            payloadLimit = configuration.payloadLimit
            voipPayloadLimit = configuration.voipPayloadLimit
            requiresJSONObjectPayload = configuration.requiresJSONObjectPayload
            broadcastPayloadLimit = configuration.broadcastPayloadLimit
            teamTopics = configuration.teamTopics
            deviceTopics = Dictionary(
                configuration.deviceTopics.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { _, last in last })
        }
    }

    /// The path before the device token.
    static let pathPrefix = "/3/device/"
    /// Apple's push types.
    private static let pushTypes = PushType.documented.map(\.rawValue)
    private static let collapseIDLimit = 64

    let rules: Rules

    /// Validates one request that arrived at `now` (``ConnectionAuthenticator/now``); `ids`
    /// makes the `apns-id` of a request that has no valid one, `strings` holds the values
    /// of the connection's last request.
    func check(
        headers: HTTP2HeaderList, body: [UInt8], authenticator: inout ConnectionAuthenticator, ids: inout UUIDSequence,
        strings: inout RequestFieldStrings, now: Double
    ) -> RequestVerdict {
        let fields = RequestHeaders.read(headers, reusing: &strings)
        if let path = fields.path, path.isBroadcast {
            return checkBroadcast(fields, body: body, authenticator: &authenticator, ids: &ids, now: now)
        }
        var apnsID: AnswerID {
            if let sent = fields.apnsID, UUIDText.isCanonical(sent) { return AnswerID(sent: sent) }
            return ids.nextID()
        }
        do throws(Refused) {
            let valid = try validate(fields, body: body, authenticator: &authenticator, now: now)
            return .valid(ValidatedRequest(
                path: fields.path!, topic: valid.topic, pushType: fields.pushType,
                priority: fields.priority.flatMap { Int($0) }, expiration: fields.expiration.flatMap { Int($0) },
                collapseID: fields.collapseID, apnsID: apnsID, payload: body, authentication: valid.authentication))
        } catch {
            return .refused(error.refusal, apnsID: apnsID)
        }
    }

    /// Why validation stopped.
    private struct Refused: Error {
        let refusal: HTTP2MockGateway.Refusal

        init(_ reason: ProviderReason) {
            refusal = HTTP2MockGateway.Refusal(reason: reason)
        }

        init(_ refusal: HTTP2MockGateway.Refusal) {
            self.refusal = refusal
        }
    }

    /// What validation establishes beyond the fields as sent.
    private struct Valid {
        var topic: String
        var authentication: HTTP2MockGateway.Authentication
    }

    private func validate(
        _ fields: RequestHeaders, body: [UInt8], authenticator: inout ConnectionAuthenticator, now: Double
    ) throws(Refused) -> Valid {
        guard fields.method == "POST" else { throw Refused(.methodNotAllowed) }
        guard let path = fields.path else { throw Refused(.badPath) }
        let token = path.withBytes(DeviceTokenPath.init)
        switch token {
        case .notADevicePath: throw Refused(.badPath)
        case .empty: throw Refused(.missingDeviceToken)
        case .token: break
        }
        guard !fields.hasDuplicates else { throw Refused(.duplicateHeaders) }

        let authentication: HTTP2MockGateway.Authentication
        switch authenticator.authenticate(authorization: fields.authorization, now: now) {
        case .refused(let refusal): throw Refused(refusal)
        case .authenticated(let who): authentication = who
        }
        let topic = try self.topic(fields.topic, authenticator)

        if let pushType = fields.pushType, !Self.isPushType(pushType) { throw Refused(.invalidPushType) }
        if let priority = fields.priority, priority != "10" && priority != "5" && priority != "1" {
            throw Refused(.badPriority)
        }
        if let expiration = fields.expiration, !Self.isNonNegativeInteger(expiration) { throw Refused(.badExpirationDate) }
        if let collapseID = fields.collapseID, collapseID.utf8.count > Self.collapseIDLimit {
            throw Refused(.badCollapseID)
        }
        if let apnsID = fields.apnsID, !UUIDText.isCanonical(apnsID) { throw Refused(.badMessageID) }
        guard case .token(let length, let isHex) = token, isHex, length < rules.acceptsTokenLength.count,
            rules.acceptsTokenLength[length]
        else {
            throw Refused(.badDeviceToken)
        }

        guard !body.isEmpty else { throw Refused(.payloadEmpty) }
        let limit = fields.pushType == PushType.voip.rawValue ? rules.voipPayloadLimit : rules.payloadLimit
        guard body.count <= limit else { throw Refused(.payloadTooLarge) }
        if rules.requiresJSONObjectPayload && !JSONObjectCheck.isObject(body) { throw Refused(.payloadEmpty) }

        if !rules.deviceTopics.isEmpty, let owner = rules.deviceTopics[ValidatedRequest.token(in: path)], owner != topic {
            throw Refused(.deviceTokenNotForTopic)
        }
        return Valid(topic: topic, authentication: authentication)
    }

    /// The topic a request goes to, by the rules of its authentication.
    private func topic(_ sent: String?, _ authenticator: ConnectionAuthenticator) throws(Refused) -> String {
        if let sent, sent.isEmpty { throw Refused(.badTopic) }
        if let topics = authenticator.certificateTopics {
            guard let sent else {
                guard topics.count == 1 else { throw Refused(.missingTopic) }
                return topics[0]
            }
            guard topics.contains(sent) else { throw Refused(.topicDisallowed) }
            return sent
        }
        guard let sent else { throw Refused(.missingTopic) }
        if let team = authenticator.teamID, let allowed = rules.teamTopics[team], !allowed.isEmpty,
            !allowed.contains(sent)
        {
            throw Refused(.topicDisallowed)
        }
        return sent
    }

    /// Whether `value` is one of Apple's push types: a few comparisons of short strings,
    /// cheaper than hashing.
    private static func isPushType(_ value: String) -> Bool {
        pushTypes.contains(value)
    }

    static func isNonNegativeInteger(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 18 && text.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }
}

/// A request that passed validation: what is recorded if it is accepted.
struct ValidatedRequest {
    /// `:path`, kept whole: the token is cut from it only when a record is built.
    let path: RequestPath
    let topic: String
    let pushType: String?
    let priority: Int?
    let expiration: Int?
    let collapseID: String?
    let apnsID: AnswerID
    let payload: [UInt8]
    let authentication: HTTP2MockGateway.Authentication

    /// The device token, lowercase hex.
    var token: String { Self.token(in: path) }

    /// The device token of a `/3/device/<token>` path, lowercase.
    static func token(in path: RequestPath) -> String {
        path.withBytes { String(decoding: $0.dropFirst(RequestValidator.pathPrefix.utf8.count), as: UTF8.self).lowercased() }
    }
}
