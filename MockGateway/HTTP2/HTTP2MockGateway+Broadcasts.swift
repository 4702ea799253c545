import APNGatewayServer

extension HTTP2MockGateway {
    /// A broadcast channel the gateway keeps (created with `POST /1/apps/<bundle id>/channels`).
    public struct Channel: Sendable, Hashable {
        /// The channel id (`apns-channel-id`): base64 of 16 bytes.
        public var id: String
        /// `message-storage-policy`: 0 (No Message Stored) or 1 (Most Recent Message Stored).
        public var messageStoragePolicy: Int
        /// `push-type`: `LiveActivity`.
        public var pushType: String

        /// A channel (tests build the channels they expect with it).
        public init(id: String, messageStoragePolicy: Int, pushType: String) {
            self.id = id
            self.messageStoragePolicy = messageStoragePolicy
            self.pushType = pushType
        }
    }

    /// A broadcast the gateway accepted (`POST /4/broadcasts/apps/<bundle id>`, answered 200),
    /// as it arrived.
    public struct BroadcastRecord: Sendable, Hashable {
        /// The connection it came on (as ``Record/connection``).
        public var connection: Int
        /// Its place among the accepted broadcasts: 1, 2, 3, … (device notifications apart).
        public var sequence: Int
        /// The bundle id from `:path`.
        public var bundleID: String
        /// `apns-channel-id`.
        public var channelID: String
        /// `apns-priority`: 10, 5 or 1.
        public var priority: Int
        /// `apns-expiration`, UNIX seconds (0: not stored).
        public var expiration: Int
        /// The `apns-request-id` answered: the request's own, or one the gateway made.
        public var requestID: String
        /// The `apns-unique-id` answered.
        public var uniqueID: String
        /// The payload bytes, as sent.
        public var payload: [UInt8]
        /// How the request was authenticated.
        public var authentication: Authentication

        /// Creates a record (tests build the records they expect with it).
        public init(
            connection: Int, sequence: Int, bundleID: String, channelID: String, priority: Int, expiration: Int,
            requestID: String, uniqueID: String, payload: [UInt8], authentication: Authentication
        ) {
            self.connection = connection
            self.sequence = sequence
            self.bundleID = bundleID
            self.channelID = channelID
            self.priority = priority
            self.expiration = expiration
            self.requestID = requestID
            self.uniqueID = uniqueID
            self.payload = payload
            self.authentication = authentication
        }
    }

    /// The channels of `bundleID` now, in creation order.
    public func channels(bundleID: String) -> [Channel] {
        shared.read { $0.channels.channels(bundleID: bundleID) }
    }

    /// The broadcasts accepted so far, in answer order: every one unless the
    /// ``Configuration/recordRetention`` limit let the oldest go (or they were released).
    public var broadcasts: [BroadcastRecord] { broadcasts(from: 0) }

    /// How many broadcasts were accepted so far.
    public var broadcastCount: Int { shared.read { $0.broadcasts.count } }

    /// The broadcasts accepted after the first `start` (at most `limit`): those still kept.
    ///
    /// - Precondition: `start >= 0`, `limit >= 0`.
    public func broadcasts(from start: Int, limit: Int = .max) -> [BroadcastRecord] {
        shared.read { Array($0.broadcasts.records(from: start, limit: limit)) }
    }

    /// Frees the broadcasts up to and including the one with `sequence`, once a consumer has
    /// copied them (`apn mock-gateway --record` does).
    public func releaseBroadcasts(through sequence: Int) {
        shared.update { $0.broadcasts.release(upTo: sequence) }
    }

    /// Waits until at least `count` broadcasts were accepted, or `timeout` passes, or the
    /// gateway stops. A condition wait.
    ///
    /// - Returns: whether the count was reached.
    public func waitForBroadcasts(count: Int, timeout: Duration) -> Bool {
        // Not a counted waiter, which would make every read of every connection wake it: the
        // connection that records a broadcast wakes the waiters itself.
        let shared = shared
        return shared.server.waitForChange(until: .now + timeout, countingAsWaiter: false) {
            shared.read { $0.broadcasts.count >= count }
        }
    }

    /// Appends the record file's lines (`apn mock-gateway --record`) of at most `limit`
    /// broadcasts from position `start` on, and returns the position after the last one
    /// appended (`start` when none was). Copied under the gateway's lock, formatted after.
    package func appendBroadcastLines(from start: Int, limit: Int, to lines: inout RecordLineBuffer) -> Int {
        let records = broadcasts(from: start, limit: limit)
        for record in records { BroadcastStore.appendLine(record, to: &lines) }
        return records.last.map { $0.sequence } ?? start
    }
}

/// The accepted broadcasts, kept as public values (broadcasts are few beside device
/// notifications): the latest ``limit`` at least, older ones dropped in chunks.
struct BroadcastStore {
    /// How many are kept (``RecordRetention/limit``; its overflow rule is not applied:
    /// the oldest go).
    let limit: Int
    /// How many were accepted.
    private(set) var count = 0
    /// The kept records; the first has position ``firstKept`` (0-based).
    private var kept: [HTTP2MockGateway.BroadcastRecord] = []
    private var firstKept = 0

    init(limit: Int) {
        self.limit = limit
    }

    /// Stores `record` (its ``HTTP2MockGateway/BroadcastRecord/sequence`` is set here).
    mutating func append(_ record: HTTP2MockGateway.BroadcastRecord) {
        count += 1
        guard limit > 0 else {
            firstKept = count
            return
        }
        var record = record
        record.sequence = count
        kept.append(record)
        // Dropped a chunk at a time, so that an append costs O(1) on average.
        if kept.count - limit >= limit {
            let excess = kept.count - limit
            kept.removeFirst(excess)
            firstKept += excess
        }
    }

    /// Frees the records at positions below `end`.
    mutating func release(upTo end: Int) {
        let drop = min(max(0, end - firstKept), kept.count)
        kept.removeFirst(drop)
        firstKept += drop
    }

    /// The kept records from position `start`, at most `limit` (and at most ``limit`` back).
    func records(from start: Int, limit: Int) -> ArraySlice<HTTP2MockGateway.BroadcastRecord> {
        let lower = max(start, firstKept, count - self.limit) - firstKept
        guard lower < kept.count else { return [] }
        return kept[lower..<(lower + min(limit, kept.count - lower))]
    }

    /// Appends `record`'s record file line:
    /// `{"protocol":"http2","kind":"broadcast","connection":…,"seq":…,"bundle_id":…,"channel_id":…,
    /// "priority":…,"expiration":…,"request_id":…,"unique_id":…,"auth":"certificate"` (or
    /// `"token","key_id":…,"team_id":…`)`,"payload":…}`.
    static func appendLine(_ record: HTTP2MockGateway.BroadcastRecord, to lines: inout RecordLineBuffer) {
        var strings = record.bundleID.utf8.count + record.channelID.utf8.count + record.requestID.utf8.count
            + record.uniqueID.utf8.count
        if case .token(let keyID, let teamID) = record.authentication { strings += keyID.utf8.count + teamID.utf8.count }
        let maximumLength = 400 + RecordLineCursor.maximumQuotedLength(strings)
            + RecordLineCursor.maximumPayloadLength(record.payload.count)
        lines.appendLine(maximumLength: maximumLength) { line in
            line.raw(#"{"protocol":"http2","kind":"broadcast","connection":"#)
            line.integer(record.connection)
            line.raw(#","seq":"#)
            line.integer(record.sequence)
            line.raw(#","bundle_id":"#)
            line.quoted(record.bundleID)
            line.raw(#","channel_id":"#)
            line.quoted(record.channelID)
            line.raw(#","priority":"#)
            line.integer(record.priority)
            line.raw(#","expiration":"#)
            line.integer(record.expiration)
            line.raw(#","request_id":"#)
            line.quoted(record.requestID)
            line.raw(#","unique_id":"#)
            line.quoted(record.uniqueID)
            line.authentication(record.authentication)
            record.payload.withUnsafeBytes { line.payload($0) }
            line.raw("}\n")
        }
    }
}
