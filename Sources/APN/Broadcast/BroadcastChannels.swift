import Foundation

/// Apple's channel management API for broadcast push (iOS 18): create, read, list and
/// delete the channels an app's Live Activities subscribe to. Broadcasting to a channel is
/// ``Provider/broadcast(_:to:bundleID:)``.
///
/// ```swift
/// var options = Provider.Options()
/// options.authentication = .token(keyID: "ABC123DEFG", teamID: "DEF123GHIJ", key: "AuthKey_ABC123DEFG.p8")
/// options.topic = "com.example.app"
/// let channels = BroadcastChannels(options: options)
/// let channel = try await channels.create(storagePolicy: .noMessageStored)
/// print(channel.id)                        // give it to the app: input-push-channel
/// let ids = try await channels.list()
/// try await channels.delete(channel.id)
/// await channels.shutdown()
/// ```
///
/// Apple's management host is its own: `api-manage-broadcast.push.apple.com:2196` in
/// production, `api-manage-broadcast.sandbox.push.apple.com:2195` in development —
/// chosen by ``ServiceAccess/production`` when ``ServiceAccess/address`` is `nil`; with an
/// address set (a test gateway, `apn mock-gateway --http2`), that address and
/// ``ServiceAccess/port`` are used. Authentication is the options': provider tokens or
/// the client certificate (Apple's pages take either). Channels are per environment.
///
/// Every request carries an `apns-request-id` made here; Apple's refusals come as
/// ``ProviderError``s with the typed ``ProviderError/reason`` (`ChannelNotRegistered`,
/// `CannotCreateChannelConfig`, `FeatureNotEnabled`, …) and the ``ProviderError/requestID``.
/// 429 and 5xx answers are retried as for notifications, but a create is never sent twice
/// once Apple may have acted on it: after a 5xx or a connection lost with it in flight it
/// fails with ``ProviderError/mayHaveBeenDelivered`` — ``list(bundleID:)`` then shows
/// whether the channel was made.
public final class BroadcastChannels: Sendable {
    /// Apple's production management host.
    public static let productionHost = "api-manage-broadcast.push.apple.com"
    /// Apple's development management host.
    public static let sandboxHost = "api-manage-broadcast.sandbox.push.apple.com"
    /// Apple's production management port.
    public static let productionPort: UInt16 = 2196
    /// Apple's development management port.
    public static let sandboxPort: UInt16 = 2195
    /// The largest answer body taken: a list of 10,000 channel ids with room to spare.
    static let responseBodyLimit = 1 << 20
    /// Streams in flight at most: management requests are few, and each answer may be large.
    static let streamLimit = 16

    /// The options in use: those given, pointed at the management host.
    public let options: Provider.Options
    private let provider: Provider

    /// A client of the management API with `options`' credentials, environment and
    /// ``Provider/Options/topic`` (the bundle id requests name by default); nothing
    /// connects until the first request.
    public init(options: Provider.Options) {
        var options = Self.managementOptions(options)
        options.responseBodyLimit = Self.responseBodyLimit
        options.maxConcurrentStreams = min(options.maxConcurrentStreams, Self.streamLimit)
        self.options = options
        provider = Provider(options: options)
    }

    /// `options` pointed at the management API as ``init(options:)`` points them: with no
    /// ``ServiceAccess/address``, Apple's management host and port for the environment;
    /// otherwise as they are. For what depends on the host before a client is made (a
    /// proxy chosen by `no_proxy`).
    public static func managementOptions(_ options: Provider.Options) -> Provider.Options {
        var options = options
        if options.access.address == nil {
            options.access.address = options.production ? productionHost : sandboxHost
            options.access.port = options.production ? productionPort : sandboxPort
        }
        return options
    }

    /// Creates a channel (`POST /1/apps/<bundle id>/channels`, push type `LiveActivity`).
    ///
    /// - Parameters:
    ///   - storagePolicy: Whether Apple keeps the latest broadcast for devices offline;
    ///     fixed for the channel's life.
    ///   - bundleID: The app's bundle id; `nil`: ``Provider/Options/topic`` without a
    ///     `.push-type.` suffix.
    /// - Returns: The channel, its id from Apple's `apns-channel-id`.
    /// - Throws: ``ProviderError``; `CannotCreateChannelConfig` when the app has its
    ///   10,000 channels.
    public func create(
        storagePolicy: MessageStoragePolicy, bundleID: String? = nil
    ) async throws(ProviderError) -> BroadcastChannel {
        let response = try await perform(
            BroadcastRequests.create(
                storagePolicy, bundleID: try self.bundleID(bundleID), requestID: UUID(), authority: options.host))
        guard let id = response.exchange?.channelID, !id.isEmpty else {
            throw ProviderError(
                code: .protocolError, message: "the channel was created, but the answer named no apns-channel-id",
                status: response.status, requestID: response.exchange?.requestID, mayHaveBeenDelivered: true)
        }
        return BroadcastChannel(id: id, storagePolicy: storagePolicy)
    }

    /// Reads channel `id`'s configuration (`GET /1/apps/<bundle id>/channels`).
    ///
    /// - Throws: ``ProviderError``; `ChannelNotRegistered` for a channel that does not
    ///   exist (or was deleted), ``ProviderError/Code/invalidNotification`` for an id that
    ///   is not base64.
    public func read(_ id: String, bundleID: String? = nil) async throws(ProviderError) -> BroadcastChannel {
        let response = try await perform(
            BroadcastRequests.channel(
                "GET", id: id, bundleID: try self.bundleID(bundleID), requestID: UUID(), authority: options.host))
        let policy = try BroadcastRequests.storagePolicy(fromReadBody: response.exchange?.body ?? [])
        return BroadcastChannel(id: id, storagePolicy: policy)
    }

    /// The ids of every channel of the app (`GET /1/apps/<bundle id>/all-channels`).
    public func list(bundleID: String? = nil) async throws(ProviderError) -> [String] {
        let response = try await perform(
            BroadcastRequests.list(bundleID: try self.bundleID(bundleID), requestID: UUID(), authority: options.host))
        return try BroadcastRequests.channelIDs(fromListBody: response.exchange?.body ?? [])
    }

    /// Deletes channel `id` (`DELETE /1/apps/<bundle id>/channels`), for good: Apple may
    /// still deliver a message it stored.
    ///
    /// - Throws: ``ProviderError``; `ChannelNotRegistered` for a channel that does not exist.
    public func delete(_ id: String, bundleID: String? = nil) async throws(ProviderError) {
        _ = try await perform(
            BroadcastRequests.channel(
                "DELETE", id: id, bundleID: try self.bundleID(bundleID), requestID: UUID(), authority: options.host))
    }

    /// Waits for every answer still due, then closes the connection.
    public func shutdown() async {
        await provider.shutdown()
    }

    private func bundleID(_ given: String?) throws(ProviderError) -> String {
        try BroadcastRequests.bundleID(given, topic: options.topic)
    }

    /// Sends `template`'s request: the response when accepted.
    private func perform(_ template: ProviderRequest.Template) async throws(ProviderError) -> ProviderResponse {
        let response = await provider.exchange(template)
        if let error = response.error { throw error }
        return response
    }
}
