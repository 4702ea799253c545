import APNFeedbackStore
import APNSupport
import Synchronization

/// What the store's writer asks of each tenant's journal in a group commit
/// (``ForwardJournal``): its work, then — once the batch committed — to hand what it may
/// send to its provider.
protocol JournalSource: AnyObject, Sendable {
    /// The tenant's work for this commit, or nil.
    func takeJournalWork() -> ForwardJournal.Work?
    /// The lowest seq the tenant read and has no answer for (``ForwardJournal/lowestUnanswered``).
    var lowestUnansweredSeq: Int64? { get }
    /// The batch holding `work` committed: hand `work.sends` to the provider.
    func journalCommitted(_ work: ForwardJournal.Work)
}

/// The journal's seqs: one counter for the bridge process, so that (instance, seq) keys a row.
final class JournalSequence: Sendable {
    private let last = Atomic<Int64>(0)
    private let adopted = Atomic<Int64>(Int64.min)

    /// The next seq.
    func next() -> Int64 { last.add(1, ordering: .relaxed).newValue }

    /// A serial for a record row taken over from a dead bridge: negative, so it meets none
    /// the record gives (they count up from 0).
    func nextAdoptedSerial() -> Int64 { adopted.add(1, ordering: .relaxed).newValue }

    /// The last seq given.
    var current: Int64 { last.load(ordering: .relaxed) }
}

/// The journal's side of the store's writer thread (used on that thread only): gathers the
/// tenants' work into one ``BridgeStateStore/JournalBatch``, writes it, and on success lets each
/// tenant send; a batch the store refused is written again as it was (nothing is sent
/// meanwhile). Rows answered and older than ``tail`` are dropped.
///
/// `@unchecked Sendable`: it is handed once to the writer thread when that starts and used
/// there only; its sources and sequence are Sendable themselves.
final class JournalPump: @unchecked Sendable {
    let instance: Int64
    /// Every tenant's journal: the table's tenants, read at each commit (a reload adds some).
    private let table: BridgeTenantTable
    private var sources: [any JournalSource] { Array(table.all.values) }
    let sequence: JournalSequence
    /// How long answered rows are kept: long enough for a client that lost its connection
    /// (a kill) to reconnect and resend, so that its resends are answered from them.
    static let tail: Duration = .seconds(60)
    /// A batch the store refused, to write again.
    private var retry: [(source: any JournalSource, work: ForwardJournal.Work)]?
    /// (seq, when) about once a second, to find the seq below which rows are older than the tail.
    private var checkpoints = FIFO<(seq: Int64, at: ContinuousClock.Instant)>()
    private var prunedBelow: Int64 = 0
    private var lastCheckpoint: ContinuousClock.Instant?

    init(instance: Int64, table: BridgeTenantTable, sequence: JournalSequence) {
        self.instance = instance
        self.table = table
        self.sequence = sequence
    }

    /// One group commit: returns nil when there was nothing to write, else the store's error
    /// (nil inside: written).
    func step(_ store: BridgeStateStore) -> StoreError?? {
        let works = retry ?? sources.compactMap { source in source.takeJournalWork().map { (source, $0) } }
        var batch = BridgeStateStore.JournalBatch()
        for (_, work) in works {
            batch.inserts += work.rows
            if work.marks != BridgeStateStore.JournalMarks() { batch.marks[work.tenant] = work.marks }
            batch.answers += work.answers
        }
        batch.pruneBelow = pruneBelow()
        guard !batch.isEmpty else { return .none }
        do throws(StoreError) {
            try store.applyJournal(batch, instance: instance)
        } catch {
            retry = works
            return .some(error)
        }
        retry = nil
        if let below = batch.pruneBelow { prunedBelow = below }
        for (source, work) in works { source.journalCommitted(work) }
        return .some(nil)
    }

    /// The seq below which rows are answered and older than the tail, when it moved.
    private func pruneBelow() -> Int64? {
        let now = ContinuousClock.now
        if checkpoints.isEmpty || now - (lastCheckpoint ?? now) >= .seconds(1) {
            checkpoints.append((sequence.current + 1, now))
            lastCheckpoint = now
        }
        var below: Int64?
        while let first = checkpoints.first, now - first.at >= Self.tail {
            below = first.seq
            _ = checkpoints.removeFirst()
        }
        guard var below, below > prunedBelow else { return nil }
        // Never a row still awaiting its answer.
        for source in sources { if let lowest = source.lowestUnansweredSeq { below = min(below, lowest) } }
        return below > prunedBelow ? below : nil
    }
}
