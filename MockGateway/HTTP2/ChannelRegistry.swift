import APNWire
import Foundation

/// The broadcast channels an ``HTTP2MockGateway`` keeps, per bundle id, as Apple's channel
/// management keeps them per app and environment (the gateway is one environment): each
/// channel's id, message storage policy and push type, in creation order, at most
/// ``limit`` per bundle id. A plain value, kept in the gateway's ledger and changed under its
/// lock; it decides the answers that depend on which channels exist.
///
/// Channel ids are opaque base64 of 16 bytes, as Apple's are opaque base64: 8 bytes of a
/// seed and an 8-byte counter, so a test that sets the seed knows every id in advance
/// (``channelID(seed:serial:)``). The counter never repeats, so a deleted channel's id is
/// never given again.
///
/// Bounded as a whole too (``totalLimit``): a client may name any bundle id it is allowed,
/// and 10,000 channels under each of an endless stream of names would grow the mock without
/// bound. A bundle id whose last channel is deleted is forgotten, so creating and deleting
/// under new names leaves nothing behind.
struct ChannelRegistry: Sendable {
    /// Channels per bundle id (Apple's: 10,000 per environment).
    let limit: Int
    /// Channels across every bundle id; a create beyond is refused as one beyond ``limit`` is.
    let totalLimit: Int
    private let seed: UInt64
    /// Channels kept now, across bundle ids.
    private(set) var total = 0
    /// Channels created so far, across bundle ids: the next id's counter.
    private var serial: UInt64 = 0
    private var apps: [String: App] = [:]

    /// One bundle id's channels.
    private struct App {
        /// Ids in creation order.
        var ids: [String] = []
        var channels: [String: HTTP2MockGateway.Channel] = [:]
    }

    /// A registry of at most `limit` channels per bundle id and `totalLimit` in all.
    init(limit: Int, seed: UInt64, totalLimit: Int = 100_000) {
        self.limit = limit
        self.totalLimit = totalLimit
        self.seed = seed
    }

    /// The id of the channel created `serial`-th (from 1) by a registry with `seed`.
    static func channelID(seed: UInt64, serial: UInt64) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(16)
        for value in [seed, serial] {
            for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> shift)) }
        }
        return Data(bytes).base64EncodedString()
    }

    /// Creates a channel for `bundleID`; its id, or `nil` when the bundle id has ``limit``
    /// channels already.
    mutating func create(bundleID: String, messageStoragePolicy: Int, pushType: String) -> String? {
        guard (apps[bundleID]?.ids.count ?? 0) < limit, total < totalLimit else { return nil }
        serial += 1
        total += 1
        let id = Self.channelID(seed: seed, serial: serial)
        apps[bundleID, default: App()].ids.append(id)
        apps[bundleID]!.channels[id] = HTTP2MockGateway.Channel(
            id: id, messageStoragePolicy: messageStoragePolicy, pushType: pushType)
        return id
    }

    /// The channel `id` of `bundleID`, if it exists.
    func channel(_ id: String, bundleID: String) -> HTTP2MockGateway.Channel? {
        apps[bundleID]?.channels[id]
    }

    /// Deletes channel `id` of `bundleID`; whether it existed.
    mutating func delete(_ id: String, bundleID: String) -> Bool {
        guard apps[bundleID]?.channels.removeValue(forKey: id) != nil else { return false }
        apps[bundleID]!.ids.removeAll { $0 == id }
        if apps[bundleID]!.ids.isEmpty { apps[bundleID] = nil }
        total -= 1
        return true
    }

    /// The channel ids of `bundleID`, in creation order.
    func ids(bundleID: String) -> [String] {
        apps[bundleID]?.ids ?? []
    }

    /// The channels of `bundleID`, in creation order.
    func channels(bundleID: String) -> [HTTP2MockGateway.Channel] {
        guard let app = apps[bundleID] else { return [] }
        return app.ids.compactMap { app.channels[$0] }
    }

    /// What a validated broadcast or channel request comes to, given the channels: the
    /// registry changed for a create or a delete. Broadcasts change nothing here (the ledger
    /// records them).
    mutating func judge(_ operation: BroadcastRequest.Operation, bundleID: String) -> Judgement {
        switch operation {
        case .create(let policy, let pushType):
            guard let id = create(bundleID: bundleID, messageStoragePolicy: policy, pushType: pushType) else {
                return .refused(.cannotCreateChannelConfig)
            }
            return .created(id)
        case .read(let id):
            guard let channel = channel(id, bundleID: bundleID) else { return .refused(.channelNotRegistered) }
            return .channel(channel)
        case .delete(let id):
            return delete(id, bundleID: bundleID) ? .deleted : .refused(.channelNotRegistered)
        case .list:
            return .list(ids(bundleID: bundleID))
        case .send(let send):
            guard let channel = channel(send.channelID, bundleID: bundleID) else { return .refused(.channelNotRegistered) }
            // Apple: "you can only specify a 0 expiration value" on a No Message Stored channel.
            if channel.messageStoragePolicy == 0 && send.expiration != 0 { return .refused(.badExpirationDate) }
            return .sent
        }
    }

    /// The outcome of ``judge(_:bundleID:)``.
    enum Judgement: Equatable {
        case created(String)
        case channel(HTTP2MockGateway.Channel)
        case deleted
        case list([String])
        case sent
        case refused(ProviderReason)
    }
}
