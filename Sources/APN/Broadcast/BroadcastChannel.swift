/// A broadcast channel (iOS 18's broadcast push): the id Apple gave it when it was created
/// (``BroadcastChannels/create(storagePolicy:bundleID:)``) and, when known, its storage
/// policy — with it, ``Provider/broadcast(_:to:bundleID:)`` refuses what Apple would
/// (a nonzero expiration on a channel that stores nothing) before sending.
///
/// ```swift
/// let channel = BroadcastChannel(id: "dHN0LXNyY2gtY2hubA==", storagePolicy: .noMessageStored)
/// ```
public struct BroadcastChannel: Hashable, Sendable, CustomStringConvertible {
    /// The channel id (`apns-channel-id`): base64, of a length Apple does not fix.
    public var id: String
    /// The channel's `message-storage-policy`; `nil` when not known (a channel named by
    /// its id alone, or from ``BroadcastChannels/list(bundleID:)``).
    public var storagePolicy: MessageStoragePolicy?

    /// Names a channel.
    public init(id: String, storagePolicy: MessageStoragePolicy? = nil) {
        self.id = id
        self.storagePolicy = storagePolicy
    }

    /// The id, and the policy when known.
    public var description: String {
        storagePolicy.map { "\(id) (\($0))" } ?? id
    }

    /// Whether `id` can be a channel id: standard base64 with its padding, as Apple's are
    /// (Apple answers `BadChannelId` otherwise).
    static func isWellFormed(_ id: String) -> Bool {
        let bytes = id.utf8
        guard !bytes.isEmpty, bytes.count.isMultiple(of: 4) else { return false }
        var padding = 0
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "="): padding += 1
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "/"):
                if padding > 0 { return false }  // padding only at the end
            default: return false
            }
        }
        return padding <= 2
    }
}

/// A channel's `message-storage-policy`, fixed when it is created.
public enum MessageStoragePolicy: Int, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// 0, "No Message Stored": a device offline when a broadcast is sent never gets it; a
    /// broadcast must then have expiration 0. Apple allows a higher publishing budget.
    case noMessageStored = 0
    /// 1, "Most Recent Message Stored": the latest broadcast is kept (up to 8 hours, or
    /// until its expiration) for devices that come online.
    case mostRecentMessageStored = 1

    /// Apple's name for it.
    public var description: String {
        switch self {
        case .noMessageStored: "no message stored"
        case .mostRecentMessageStored: "most recent message stored"
        }
    }
}
