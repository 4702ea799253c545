import APNWire

/// One notification (or a flush marker) inside the session: what the frame needs, and the
/// caller's tag to report about. Payload and token arrays are shared with the caller's
/// `Notification` and `Device`, never copied.
struct SessionEntry<Record: AnyObject> {
    // Declared in this order so the tag's 4-byte index fills the gap before `expiry`: the
    // slot stays 56 bytes (it would be 64 with the tag first).
    var token: [UInt8]
    var payload: [UInt8]
    /// The caller's handle; nil only for a flush marker.
    var tag: SessionTag<Record>?
    var expiry: UInt32
    /// Resends still allowed; negative = unlimited.
    var retriesLeft: Int32
    /// Assigned when encoded, per connection.
    var identifier: UInt32 = 0
    /// When the socket took its last byte.
    var writtenAt = Timestamp.zero
    var priority: UInt8
    var flags: SessionEntryFlags = []
    /// The frame's length on the wire, set when encoded (kept when evicted, so the byte
    /// stream can still be followed).
    var frameLength: UInt32 = 0

    var isFlushMarker: Bool { flags.contains(.flushMarker) }

    /// A marker the session wrote on its own (rolling confirmation, or a full cache), not
    /// one a caller's flush asked for: nobody waits for its answer, and it is never resent.
    var isAutomaticMarker: Bool { flags.contains(.automaticMarker) }

    /// Leaves a count-bounded resend cache: the payload is released (so memory stays
    /// bounded by `cacheLength`), the entry still awaits its outcome.
    mutating func evict() {
        payload = []
        flags.insert(.evicted)
    }

    /// Why an earlier copy may have reached the gateway, if one may have.
    var earlierCopyUncertainty: UnknownFateReason? {
        guard flags.contains(.possiblyDuplicated) else { return nil }
        return flags.contains(.resentAfterClose) ? .unconfirmedAtClose : .unattributedError
    }

    /// The invalid frame (an empty token) whose error response confirms everything
    /// written before it; `automatic` when the session writes it on its own.
    static func flushMarker(automatic: Bool = false) -> SessionEntry<Record> {
        SessionEntry<Record>(
            token: [], payload: [], tag: nil, expiry: 0, retriesLeft: -1, priority: 10,
            flags: automatic ? [.flushMarker, .automaticMarker] : .flushMarker)
    }

    /// The bytes of a frame in `command` beside its token and payload.
    static func frameOverhead(_ command: Command) -> Int {
        switch command {
        case .simple: 5
        case .enhanced: 13
        case .frame: WireBuffer.frameNotificationLength(tokenCount: 0, payloadCount: 0)
        }
    }
}

/// What the session knows about one entry beyond its fields.
struct SessionEntryFlags: OptionSet {
    let rawValue: UInt8
    /// Written before and resent without proof that the first copy was dropped.
    static let possiblyDuplicated = SessionEntryFlags(rawValue: 1)
    /// With `flushMarker`: written by the session itself (see `isAutomaticMarker`).
    static let automaticMarker = SessionEntryFlags(rawValue: 2)
    /// Not a notification: the invalid frame of a confirmed flush.
    static let flushMarker = SessionEntryFlags(rawValue: 4)
    /// Evicted from the resend cache: payload released, cannot be resent.
    static let evicted = SessionEntryFlags(rawValue: 8)
    /// With `possiblyDuplicated`: the earlier copy was written before a silent close
    /// (without it: before an error response that named no usable identifier).
    static let resentAfterClose = SessionEntryFlags(rawValue: 16)
    /// Its payload counts towards the cache's memory (not shared with the entry written
    /// just before it).
    static let payloadCharged = SessionEntryFlags(rawValue: 32)
    /// A caller awaits its outcome (`Connection.send`): encoded with nothing queued behind
    /// it, a marker follows it (``GatewaySession/confirmPromptly(after:)``).
    static let awaited = SessionEntryFlags(rawValue: 64)
}
