package import APNFeedbackStore
import APNSupport
import APNWire

/// One tenant's part of the bridge's journal (#41 item 3): what its connections read, from
/// the read until the answer, so that a bridge killed with notifications read but not yet
/// written upstream has them forwarded by the next one, and nothing it may have written is
/// written twice.
///
/// A notification a session forwards is *read* (``read(_:)``); the store's writer takes
/// the tenant's work in each group commit (``takeWork()``): the rows read since the last,
/// and the oldest rows not yet sent, as many as the ``credit`` allows, whose mark is
/// committed in the same transaction; only once that commits are those handed to the
/// provider. So a row above its tenant's mark was never written upstream, and the
/// provider's queue holds at most ``credit`` — what a kill can catch between handed and
/// written. Answers (``answered(seq:code:)``) go in the next batch.
///
/// A pure value: no store, no clock, no lock; the driver (``TenantBridge``) keeps it under
/// its tenant's lock and the writer thread performs its ``Work``.
package struct ForwardJournal: Sendable {
    /// A notification read and journaled: its place in the journal and in its session.
    package struct Item: Sendable {
        package let seq: Int64
        package let connection: UInt64
        package let ordinal: Int
        package let notification: BridgedNotification
        /// When it was read, on the record's clock.
        package let readAt: Duration

        /// An item from its parts.
        package init(seq: Int64, connection: UInt64, ordinal: Int, notification: BridgedNotification, readAt: Duration) {
            self.seq = seq
            self.connection = connection
            self.ordinal = ordinal
            self.notification = notification
            self.readAt = readAt
        }
    }

    /// What one group commit takes from the tenant.
    package struct Work: Sendable {
        /// Whose work it is.
        package var tenant: String
        /// Rows to insert.
        package var rows: [BridgeStateStore.JournalRow] = []
        /// The tenant's marks that moved (the sent mark when some are to be sent).
        package var marks = BridgeStateStore.JournalMarks()
        /// What to hand the provider once the batch committed.
        package var sends: [Item] = []
        /// Answers other than acceptance, to write.
        package var answers: [(seq: Int64, answer: Int64)] = []
    }

    /// How an answer is kept in a journal row: a ``ResendRecord/Answer/storeCode`` for an
    /// answer the record keeps (an acceptance is not written: the answered mark says it),
    /// or one of these for a notification not delivered.
    package enum Code {
        /// Not delivered, and its client was told so (status 10): it resends it.
        package static let notDelivered: Int64 = 3
        /// Not delivered, and its client cannot be told (it closed its connection): the
        /// next bridge forwards it.
        package static let forwardAgain: Int64 = 4
    }

    /// How far the answered mark may run ahead of the store's before a group commit is
    /// asked for it alone: a stale mark only makes a kill count accepted ones as maybe
    /// delivered, so it rides along with other work unless it is this far behind.
    static let answeredMarkSlack: Int64 = 1_024

    /// The rows' instance and tenant and the clock they are timed with.
    package let rows: ResendRecordRows
    /// How many may be handed to the provider and unanswered at once.
    package let credit: Int
    /// How many may be read and not known to be in the store before reading waits
    /// (``isFull``).
    package let unconfirmedLimit: Int
    private var unjournaled: [Item] = []
    /// Rows of the work taken for the group commit under way (one at a time: the store's
    /// writer takes new work only once the last committed), until ``committed()``.
    private var inCommit = 0
    /// Of ``outstanding``, those the group commit under way is to hand: not with the
    /// provider until it commits.
    private var sendsInCommit = 0
    private var unsent = FIFO<Item>()
    /// The seqs handed to the provider, in order, until the answered mark passes them.
    private var handed = FIFO<Int64>()
    /// Handed seqs answered out of order, ahead of the mark.
    private var answeredAhead: Set<Int64> = []
    private var answers: [(seq: Int64, answer: Int64)] = []
    /// Handed to the provider, not yet answered.
    package private(set) var outstanding = 0
    /// Every handed seq up to this was answered; and the value last given to the store.
    private var answeredThrough: Int64?
    private var storedAnsweredThrough: Int64?
    /// After ``withdraw()``: nothing more is sent.
    private var withdrawn = false

    /// An empty journal for `rows`' tenant, handing at most `credit` to the provider at
    /// once, and full at `unconfirmedLimit` read and not known to be in the store.
    package init(rows: ResendRecordRows, credit: Int, unconfirmedLimit: Int = Bridge.Configuration.defaultMaxUnjournaled) {
        precondition(credit >= 1, "credit must be at least 1")
        precondition(unconfirmedLimit >= 1, "the limit must be at least 1")
        self.rows = rows
        self.credit = credit
        self.unconfirmedLimit = unconfirmedLimit
    }

    /// Whether ``unconfirmedCount`` reached ``unconfirmedLimit``: the tenant's connections
    /// read nothing more until a group commit.
    package var isFull: Bool { unconfirmedCount >= unconfirmedLimit }

    /// Whether a group commit has something to take.
    package var hasWork: Bool {
        if !unjournaled.isEmpty || !answers.isEmpty { return true }
        if !withdrawn && !unsent.isEmpty && outstanding < credit { return true }
        guard let answeredThrough else { return false }
        return answeredThrough - (storedAnsweredThrough ?? Int64.min / 2) >= Self.answeredMarkSlack
            || (outstanding == 0 && unsent.isEmpty && answeredThrough != storedAnsweredThrough)
    }

    /// Read and not known to be in the store: not yet taken by a group commit, or in the
    /// one under way. A crash loses these (the rest the next bridge forwards or counts), so
    /// the tenant's connections stop reading at ``Bridge/Configuration/maxUnjournaled`` of them.
    package var unconfirmedCount: Int { unjournaled.count + inCommit }

    /// The group commit that took the last work committed: its rows are in the store.
    package mutating func committed() {
        inCommit = 0
        sendsInCommit = 0
    }

    /// Handed to the provider (their commit done) and not yet answered.
    package var withProvider: Int { outstanding - sendsInCommit }

    /// Read and not yet answered by the provider: unjournaled, waiting for credit, handed.
    package var unansweredCount: Int { unjournaled.count + unsent.count + outstanding }

    /// The lowest seq read and not answered, if any: rows below it may be pruned.
    package var lowestUnanswered: Int64? {
        // Answered seqs leave the front of `handed` as they are answered.
        handed.first ?? unsent.first?.seq ?? unjournaled.first?.seq
    }

    /// A notification a session forwards.
    package mutating func read(_ item: Item) {
        unjournaled.append(item)
    }

    /// Items a starting bridge took over (already in the store, under this instance, not
    /// sent): they are sent as credit allows.
    package mutating func adopt(_ items: [Item]) {
        for item in items { unsent.append(item) }
    }

    /// The work of one group commit, or nil when there is none.
    package mutating func takeWork() -> Work? {
        guard hasWork else { return nil }
        var work = Work(tenant: rows.tenant)
        for item in unjournaled {
            let key = item.notification.resendKey
            work.rows.append(
                BridgeStateStore.JournalRow(
                    instance: rows.instance, seq: item.seq, tenant: rows.tenant, token: key.token, payload: key.payload,
                    expiry: key.expiry, priority: key.priority, answer: nil,
                    recordedAt: rows.originMilliseconds + item.readAt.wholeMilliseconds))
            unsent.append(item)
        }
        inCommit += unjournaled.count
        unjournaled.removeAll(keepingCapacity: true)
        if !withdrawn {
            while outstanding < credit, !unsent.isEmpty {
                let item = unsent.removeFirst()
                work.sends.append(item)
                handed.append(item.seq)
                outstanding += 1
            }
            work.marks.sentThrough = work.sends.last?.seq
            sendsInCommit += work.sends.count
        }
        if let answeredThrough, answeredThrough != storedAnsweredThrough {
            work.marks.answeredThrough = answeredThrough
            storedAnsweredThrough = answeredThrough
        }
        work.answers = answers
        answers.removeAll(keepingCapacity: true)
        return work
    }

    /// The provider answered `seq` (it was handed); `code` goes to its row, nil for an
    /// acceptance (the answered mark records it).
    package mutating func answered(seq: Int64, code: Int64?) {
        outstanding = max(0, outstanding - 1)
        if let code { answers.append((seq, code)) }
        answeredAhead.insert(seq)
        while let first = handed.first, answeredAhead.remove(first) != nil {
            answeredThrough = handed.removeFirst()
        }
    }

    /// A notification never handed is answered (withdrawn at a stop): `code` goes to its
    /// row, which the next group commit inserts first if it has not yet.
    package mutating func answeredUnsent(seq: Int64, code: Int64) {
        answers.append((seq, code))
    }

    /// The stop: nothing more is sent; returns every item read and not handed, for the
    /// driver to answer (``answeredUnsent(seq:code:)``). Their rows are still written.
    package mutating func withdraw() -> [Item] {
        withdrawn = true
        var items = unjournaled
        while !unsent.isEmpty { items.append(unsent.removeFirst()) }
        return items
    }
}
