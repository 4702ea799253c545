/// How many accepted notifications a gateway (``MockGateway`` or ``HTTP2MockGateway``) keeps
/// in memory, and what it does when that many are kept: a peer that sends without end must
/// not make the gateway's memory grow without end.
///
/// Records are counted whatever is kept: ``MockGateway/recordCount`` and each record's
/// `sequence` go on; ``MockGateway/records(from:limit:)`` returns only those still kept, and
/// ``MockGateway/discardedRecordCount`` says how many are gone.
public struct RecordRetention: Sendable, Hashable {
    /// What a gateway does when ``limit`` records are kept.
    public enum Overflow: Sendable, Hashable {
        /// Discard the oldest records as new ones come: the gateway keeps accepting, and
        /// memory stays at about ``RecordRetention/limit`` records (it is freed in blocks
        /// of 65,536 records and 4 MiB of tokens and payloads).
        case discardOldest
        /// Stop reading from the connections until a consumer copied records and released
        /// them (``MockGateway/releaseRecords(through:)``): backpressure that reaches the
        /// clients through TCP. Nothing is discarded. Used by `apn mock-gateway --record`.
        case pauseConnections
    }

    /// The most records kept in memory (0 or more). The HTTP/2 gateway checks it before each
    /// read, so it may keep one read's worth more.
    public var limit: Int
    /// What happens when ``limit`` records are kept.
    public var whenFull: Overflow

    /// The default: the latest 1,000,000 records (about 100 MB with Apple's 32-byte tokens
    /// and 60-byte payloads), the oldest discarded beyond.
    public static let standard = RecordRetention(limit: 1_000_000, whenFull: .discardOldest)

    /// Every record kept, for a run that checks each outcome against the record (a
    /// benchmark, `apn demo`): memory grows with the count, so only for a bounded run.
    public static let unlimited = RecordRetention(limit: .max, whenFull: .discardOldest)

    /// Keeps at most `limit` records (negative counts as 0), doing `whenFull` beyond.
    public init(limit: Int, whenFull: Overflow) {
        self.limit = max(0, limit)
        self.whenFull = whenFull
    }
}
