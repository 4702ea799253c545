/// The bridge's journal (#41): every notification a bridge read, written before it is
/// forwarded and kept until a while after its answer. A row is *sent* once its seq is at
/// or below its tenant's sent mark (``JournalMarks/sentThrough``), which is committed
/// before the bridge hands the rows to its provider: after a kill, rows above the mark were
/// never written upstream (the next bridge forwards them), rows at or below it may have
/// been (never forwarded again). A row with no answer of its own at or below the answered
/// mark was accepted; other answers are kept in the row, and tell the next bridge how to
/// answer a resend. The bridge decides; the store keeps the rows and applies each batch in
/// one transaction.
extension BridgeStateStore {
    /// One notification a bridge read.
    package struct JournalRow: Hashable, Sendable, HoldsStoredNotification {
        /// The bridge process that read it (random per start) …
        package var instance: Int64
        /// … and its place in what that process read: together the row's key.
        package var seq: Int64
        /// Whose client sent it, and what is forwarded (read as the row's own fields).
        package var notification: StoredNotification
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
            notification = StoredNotification(tenant: tenant, token: token, payload: payload, expiry: expiry, priority: priority)
            self.answer = answer
            self.recordedAt = recordedAt
        }
    }

    /// A tenant's marks in the journal of one bridge instance; a mark only moves forward.
    package struct JournalMarks: Hashable, Sendable {
        /// Every row of the tenant up to this seq may have been written upstream.
        package var sentThrough: Int64?
        /// Every row of the tenant up to this seq was answered; those with no answer of
        /// their own were accepted.
        package var answeredThrough: Int64?

        /// Marks so.
        package init(sentThrough: Int64? = nil, answeredThrough: Int64? = nil) {
            self.sentThrough = sentThrough
            self.answeredThrough = answeredThrough
        }
    }

    /// What one group commit of a bridge's journal writes, in one transaction.
    package struct JournalBatch: Sendable {
        /// Rows read since the last batch.
        package var inserts: [JournalRow] = []
        /// Per tenant, the marks that moved (the sent mark before the rows are handed to
        /// the provider, once this commits).
        package var marks: [String: JournalMarks] = [:]
        /// Answers other than acceptance that arrived: (seq, code).
        package var answers: [(seq: Int64, answer: Int64)] = []
        /// Rows below this seq may be dropped (answered, and older than the journal's tail):
        /// PostgreSQL drops each; SQLite drops a group commit's segment once all its rows are
        /// below (SQLite/JournalSegment.swift), so a row may outlive its prune, answered — a
        /// takeover makes it a record entry, never sends it again.
        package var pruneBelow: Int64?

        /// An empty batch.
        package init() {}

        /// Whether it writes nothing.
        package var isEmpty: Bool { inserts.isEmpty && marks.isEmpty && answers.isEmpty && pruneBelow == nil }
    }

    /// What a dead bridge left in the journal for a tenant: its rows (by instance, then seq)
    /// and its marks, for ``takeOverDeadBridges(instance:tenants:recordSince:plan:)``'s plan.
    package struct JournalLeftover: Sendable {
        package var rows: [JournalRow] = []
        package var marks: [Int64: JournalMarks] = [:]

        /// Nothing left.
        package init() {}

        /// Whether the row was sent by the instance that read it.
        package func wasSent(_ row: JournalRow) -> Bool {
            row.seq <= (marks[row.instance]?.sentThrough ?? Int64.min)
        }

        /// Whether the row was answered (accepted, when it holds no answer of its own).
        package func wasAnswered(_ row: JournalRow) -> Bool {
            row.seq <= (marks[row.instance]?.answeredThrough ?? Int64.min)
        }
    }

    /// Applies `batch` in one transaction: its rows under their own instances, its marks,
    /// answers and pruning for the bridge `instance`.
    ///
    /// - Throws: ``StoreError`` — `invalidValue` for an empty tenant, `locked`, `sqlite`.
    package func applyJournal(_ batch: JournalBatch, instance: Int64) throws(StoreError) {
        guard !batch.isEmpty else { return }
        for row in batch.inserts { try checkTenant(row.tenant) }
        for tenant in batch.marks.keys { try checkTenant(tenant) }
        try backend.applyJournal(batch, instance: instance)
    }
}
