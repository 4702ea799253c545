/// What ``GatewayState`` needs of the ledger it guards: the binary gateway's ``Ledger`` and
/// the HTTP/2 gateway's ``HTTP2Ledger`` both keep their faults and their accepted records.
/// (The connections the server closed on its own are counted in `ServerState`.)
protocol GatewayLedger: ~Copyable, SendableMetatype {
    /// The gateway's fault script.
    associatedtype Faults
    /// The faults in force.
    var faults: Faults { get set }
    /// How many notifications were accepted.
    var recordCount: Int { get }
    /// An accepted notification as the gateway's public API shows it.
    associatedtype Record: Sendable
    /// The records at `range` (0-based positions in acceptance order, from
    /// ``firstKeptRecord``), as public values.
    func records(in range: Range<Int>) -> [Record]
    /// The position (0-based) of the oldest record still kept in memory (``RecordRetention``).
    var firstKeptRecord: Int { get }
    /// How many more records may be kept before the connections must wait for a release;
    /// `Int.max` when the retention discards instead.
    var recordRoom: Int { get }
    /// Frees the records at positions below `end`.
    mutating func releaseRecords(upTo end: Int)
    /// Records copied out of the ledger, to be formatted as record-file lines outside the lock.
    associatedtype RecordCopy: RecordFileLines
    /// Copies the records at `range` (within ``firstKeptRecord``..<``recordCount``) into `copy`.
    func copyRecords(_ range: Range<Int>, into copy: inout RecordCopy)
}
