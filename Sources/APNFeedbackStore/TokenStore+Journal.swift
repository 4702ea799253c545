/// The bridge's journal (#41): every notification a bridge read, written before it is
/// forwarded and kept until a while after its answer. A row is *sent* once its seq is at
/// or below its tenant's mark (``JournalBatch/sent``), which is committed before the
/// bridge hands the rows to its provider: after a kill, rows above the mark were never
/// written upstream (the next bridge forwards them), rows at or below it may have been
/// (never forwarded again), and answered rows tell the next bridge how to answer a resend.
/// The bridge decides; the store keeps the rows and applies each batch in one transaction.
extension TokenStore {
    /// One notification a bridge read.
    package struct JournalRow: Hashable, Sendable {
        /// The bridge process that read it (random per start) …
        package var instance: Int64
        /// … and its place in what that process read: together the row's key.
        package var seq: Int64
        /// Whose client sent it.
        package var tenant: String
        /// What is forwarded: token, payload bytes, expiry, priority.
        package var token: [UInt8]
        package var payload: [UInt8]
        package var expiry: UInt32
        package var priority: UInt8
        /// Its answer, coded by the bridge; nil while none came.
        package var answer: Int64?
        /// When it was read, UNIX milliseconds.
        package var recordedAt: Int64

        /// A row from its columns.
        package init(
            instance: Int64, seq: Int64, tenant: String, token: [UInt8], payload: [UInt8], expiry: UInt32,
            priority: UInt8, answer: Int64?, recordedAt: Int64
        ) {
            self.instance = instance
            self.seq = seq
            self.tenant = tenant
            self.token = token
            self.payload = payload
            self.expiry = expiry
            self.priority = priority
            self.answer = answer
            self.recordedAt = recordedAt
        }
    }

    /// What one group commit of a bridge's journal writes, in one transaction.
    package struct JournalBatch: Sendable {
        /// Rows read since the last batch.
        package var inserts: [JournalRow] = []
        /// Per tenant, the highest seq now sent (handed to the provider once this commits).
        package var sent: [String: Int64] = [:]
        /// Answers that arrived: (seq, code).
        package var answers: [(seq: Int64, answer: Int64)] = []
        /// Answered rows below this seq are dropped (older than the journal's tail).
        package var pruneBelow: Int64?

        /// An empty batch.
        package init() {}

        /// Whether it writes nothing.
        package var isEmpty: Bool { inserts.isEmpty && sent.isEmpty && answers.isEmpty && pruneBelow == nil }
    }

    /// What other bridges left in the journal for `tenant`: their rows (by instance, then
    /// seq) and each one's mark.
    package struct JournalLeftover: Sendable {
        package var rows: [JournalRow] = []
        package var sentThrough: [Int64: Int64] = [:]

        /// Whether the row was sent by the instance that read it.
        package func wasSent(_ row: JournalRow) -> Bool {
            row.seq <= (sentThrough[row.instance] ?? Int64.min)
        }
    }

    /// Applies `batch` in one transaction: its rows under their own instances, its marks,
    /// answers and pruning for the bridge `instance`.
    ///
    /// - Throws: ``StoreError`` — `invalidValue` for an empty tenant, `locked`, `sqlite`.
    package func applyJournal(_ batch: JournalBatch, instance: Int64) throws(StoreError) {
        guard !batch.isEmpty else { return }
        for row in batch.inserts { try checkTenant(row.tenant) }
        for tenant in batch.sent.keys { try checkTenant(tenant) }
        try backend.applyJournal(batch, instance: instance)
    }

    /// The rows and marks instances other than `instance` left for `tenant`.
    package func journalLeftover(tenant: String, excluding instance: Int64) throws(StoreError) -> JournalLeftover {
        try checkTenant(tenant)
        return try backend.journalLeftover(tenant: tenant, excluding: instance)
    }

    /// A starting bridge takes over what earlier ones left for `tenant`, in one
    /// transaction: every other instance's journal rows and marks for the tenant are
    /// dropped, its resend record becomes `record`, and `journal` (what it is to forward
    /// again, under its own instance, not sent) is written.
    package func takeOverBridgeState(
        tenant: String, instance: Int64, record: [ResendRow], journal: [JournalRow]
    ) throws(StoreError) {
        try checkTenant(tenant)
        try backend.takeOverBridgeState(tenant: tenant, instance: instance, record: record, journal: journal)
    }
}
