/// Why Apple's HTTP/2 provider API refused a notification: the `reason` of its JSON
/// response body, typed.
///
/// A struct with a `static let` for every reason Apple documents, so a reason Apple adds
/// later still reaches the caller (`ProviderReason(rawValue: "NewReason")`) instead of
/// failing to decode. ``status`` is the HTTP status Apple answers it with.
public struct ProviderReason: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The reason string as Apple sends it, e.g. `"BadDeviceToken"`.
    public let rawValue: String

    /// A reason by its string.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    // MARK: 400 Bad request

    /// The collapse identifier exceeds 64 bytes.
    public static let badCollapseID = ProviderReason(rawValue: "BadCollapseId")
    /// The device token is invalid, or for the other environment.
    public static let badDeviceToken = ProviderReason(rawValue: "BadDeviceToken")
    /// The `apns-expiration` value is invalid.
    public static let badExpirationDate = ProviderReason(rawValue: "BadExpirationDate")
    /// The `apns-id` value is invalid.
    public static let badMessageID = ProviderReason(rawValue: "BadMessageId")
    /// The `apns-priority` value is invalid.
    public static let badPriority = ProviderReason(rawValue: "BadPriority")
    /// The `apns-topic` value is invalid.
    public static let badTopic = ProviderReason(rawValue: "BadTopic")
    /// The device token does not match the topic.
    public static let deviceTokenNotForTopic = ProviderReason(rawValue: "DeviceTokenNotForTopic")
    /// One or more headers are repeated.
    public static let duplicateHeaders = ProviderReason(rawValue: "DuplicateHeaders")
    /// Idle timeout.
    public static let idleTimeout = ProviderReason(rawValue: "IdleTimeout")
    /// The `apns-push-type` value is invalid.
    public static let invalidPushType = ProviderReason(rawValue: "InvalidPushType")
    /// The request's `:path` has no device token.
    public static let missingDeviceToken = ProviderReason(rawValue: "MissingDeviceToken")
    /// The `apns-topic` header is required (token authentication, or a certificate with
    /// several topics) and was missing.
    public static let missingTopic = ProviderReason(rawValue: "MissingTopic")
    /// The payload is empty.
    public static let payloadEmpty = ProviderReason(rawValue: "PayloadEmpty")
    /// Pushing to this topic is not allowed.
    public static let topicDisallowed = ProviderReason(rawValue: "TopicDisallowed")

    // MARK: 400 Bad request: broadcast push and channel management

    /// The Broadcast capability is not enabled for the topic (the bundle id).
    public static let featureNotEnabled = ProviderReason(rawValue: "FeatureNotEnabled")
    /// The `apns-channel-id` header is missing.
    public static let missingChannelID = ProviderReason(rawValue: "MissingChannelId")
    /// The `apns-channel-id` value is not properly encoded, or too long.
    public static let badChannelID = ProviderReason(rawValue: "BadChannelId")
    /// The channel named by `apns-channel-id` does not exist.
    public static let channelNotRegistered = ProviderReason(rawValue: "ChannelNotRegistered")
    /// The JSON request body has an attribute APNs does not recognise.
    public static let badRequestParams = ProviderReason(rawValue: "BadRequestParams")
    /// The JSON request body cannot be parsed.
    public static let badRequestPayload = ProviderReason(rawValue: "BadRequestPayload")
    /// The `apns-push-type` header is missing.
    public static let missingPushType = ProviderReason(rawValue: "MissingPushType")
    /// The app has as many channels as allowed (10,000 per environment): delete unused ones.
    public static let cannotCreateChannelConfig = ProviderReason(rawValue: "CannotCreateChannelConfig")

    // MARK: 403 Forbidden

    /// The certificate is invalid.
    public static let badCertificate = ProviderReason(rawValue: "BadCertificate")
    /// The client certificate is for the other environment.
    public static let badCertificateEnvironment = ProviderReason(rawValue: "BadCertificateEnvironment")
    /// The provider token is stale; a new one should be generated.
    public static let expiredProviderToken = ProviderReason(rawValue: "ExpiredProviderToken")
    /// The action is not allowed.
    public static let forbidden = ProviderReason(rawValue: "Forbidden")
    /// The provider token is not valid, or its signature could not be verified.
    public static let invalidProviderToken = ProviderReason(rawValue: "InvalidProviderToken")
    /// The bundle ids of the certificate or provider token do not include the bundle id in
    /// the path (broadcast push and channel management).
    public static let topicMismatch = ProviderReason(rawValue: "TopicMismatch")
    /// Neither a certificate nor a provider token authenticated the request.
    public static let missingProviderToken = ProviderReason(rawValue: "MissingProviderToken")
    /// The key id in the provider token is unrelated to this connection's key id.
    public static let unrelatedKeyIDInToken = ProviderReason(rawValue: "UnrelatedKeyIdInToken")
    /// The key id in the provider token is for the other environment.
    public static let badEnvironmentKeyIDInToken = ProviderReason(rawValue: "BadEnvironmentKeyIdInToken")

    // MARK: 404, 405, 410, 413, 429, 500, 503

    /// The `:path` value is invalid.
    public static let badPath = ProviderReason(rawValue: "BadPath")
    /// The method is not `POST`.
    public static let methodNotAllowed = ProviderReason(rawValue: "MethodNotAllowed")
    /// The device token has expired (410).
    public static let expiredToken = ProviderReason(rawValue: "ExpiredToken")
    /// The device token is no longer active for the topic (410): stop sending to it. The
    /// response's timestamp says since when.
    public static let unregistered = ProviderReason(rawValue: "Unregistered")
    /// The payload is too large (4 KB; 5 KB for VoIP).
    public static let payloadTooLarge = ProviderReason(rawValue: "PayloadTooLarge")
    /// The provider token is being updated too often (at most once every 20 minutes).
    public static let tooManyProviderTokenUpdates = ProviderReason(rawValue: "TooManyProviderTokenUpdates")
    /// Too many requests to the same device token.
    public static let tooManyRequests = ProviderReason(rawValue: "TooManyRequests")
    /// An internal server error.
    public static let internalServerError = ProviderReason(rawValue: "InternalServerError")
    /// The service is unavailable.
    public static let serviceUnavailable = ProviderReason(rawValue: "ServiceUnavailable")
    /// The APNs server is shutting down.
    public static let shutdown = ProviderReason(rawValue: "Shutdown")

    /// Every reason Apple documents, in the order of its documentation.
    public static let documented: [ProviderReason] = [
        .badCollapseID, .badDeviceToken, .badExpirationDate, .badMessageID, .badPriority, .badTopic,
        .deviceTokenNotForTopic, .duplicateHeaders, .idleTimeout, .invalidPushType, .missingDeviceToken, .missingTopic,
        .payloadEmpty, .topicDisallowed, .badCertificate, .badCertificateEnvironment, .expiredProviderToken,
        .forbidden, .invalidProviderToken, .missingProviderToken, .unrelatedKeyIDInToken,
        .badEnvironmentKeyIDInToken, .badPath, .methodNotAllowed, .expiredToken, .unregistered, .payloadTooLarge,
        .tooManyProviderTokenUpdates, .tooManyRequests, .internalServerError, .serviceUnavailable, .shutdown,
    ]

    /// The reasons Apple documents only for broadcast push and channel management requests
    /// (its "Handling error responses from APNs" page), in the order of its documentation;
    /// those requests are also answered with many of ``documented``.
    public static let broadcastDocumented: [ProviderReason] = [
        .featureNotEnabled, .missingChannelID, .badChannelID, .channelNotRegistered, .badRequestParams,
        .badRequestPayload, .missingPushType, .cannotCreateChannelConfig, .topicMismatch,
    ]

    /// The HTTP status Apple answers this reason with, or `nil` for a reason it does not
    /// document.
    public var status: Int? {
        switch self {
        case .badCollapseID, .badDeviceToken, .badExpirationDate, .badMessageID, .badPriority, .badTopic,
            .deviceTokenNotForTopic, .duplicateHeaders, .idleTimeout, .invalidPushType, .missingDeviceToken,
            .missingTopic, .payloadEmpty, .topicDisallowed, .featureNotEnabled, .missingChannelID, .badChannelID,
            .channelNotRegistered, .badRequestParams, .badRequestPayload, .missingPushType, .cannotCreateChannelConfig:
            400
        case .badCertificate, .badCertificateEnvironment, .expiredProviderToken, .forbidden, .invalidProviderToken,
            .missingProviderToken, .unrelatedKeyIDInToken, .badEnvironmentKeyIDInToken, .topicMismatch:
            403
        case .badPath: 404
        case .methodNotAllowed: 405
        case .expiredToken, .unregistered: 410
        case .payloadTooLarge: 413
        case .tooManyProviderTokenUpdates, .tooManyRequests: 429
        case .internalServerError: 500
        case .serviceUnavailable, .shutdown: 503
        default: nil
        }
    }

    /// Whether the device token itself is dead (``badDeviceToken``, ``unregistered``,
    /// ``expiredToken``): remove it, as the binary feedback service would have said.
    public var meansTokenIsInactive: Bool {
        self == .unregistered || self == .expiredToken || self == .badDeviceToken
    }

    /// The reason string.
    public var description: String { rawValue }
}
