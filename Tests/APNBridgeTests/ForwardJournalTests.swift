import APNBridge
import APNFeedbackStore
import APNWire
import Testing

/// #41 item 3, the pure parts: a tenant's journal hands the provider only what a group
/// commit marked sent, within its credit; a stop withdraws the rest; and a starting bridge
/// decides each row an earlier one left by the table in ``JournalRecovery``.
@Suite struct ForwardJournalTests {
    static let rows = ResendRecordRows(instance: 9, tenant: "app", originMilliseconds: 1_000_000)

    static func item(_ seq: Int64) -> ForwardJournal.Item {
        ForwardJournal.Item(seq: seq, connection: 1, ordinal: Int(seq), notification: BridgeHarness.note(Int(seq)), readAt: .seconds(2))
    }

    @Test func aGroupCommitInsertsWhatWasReadAndMarksSentOnlyWithinTheCredit() throws {
        var journal = ForwardJournal(rows: Self.rows, credit: 2)
        let none = journal.takeWork()
        #expect(none == nil, "nothing to do")
        for seq: Int64 in 1...3 { journal.read(Self.item(seq)) }
        let firstWork = journal.takeWork()
        let first = try #require(firstWork)
        #expect(first.tenant == "app")
        #expect(first.rows.map(\.seq) == [1, 2, 3])
        #expect(first.rows.allSatisfy { $0.instance == 9 && $0.answer == nil && $0.recordedAt == 1_002_000 })
        #expect(first.rows[0].token == BridgeHarness.note(1).token)
        #expect(first.sends.map(\.seq) == [1, 2] && first.marks.sentThrough == 2, "the credit")
        let waiting = journal.takeWork()
        #expect(waiting == nil, "3 waits for credit")
        journal.answered(seq: 2, code: 65_544)
        let secondWork = journal.takeWork()
        let second = try #require(secondWork)
        #expect(second.rows.isEmpty && second.sends.map(\.seq) == [3] && second.marks.sentThrough == 3)
        #expect(second.answers.map(\.seq) == [2] && second.answers.map(\.answer) == [65_544], "a refusal is written")
        #expect(second.marks.answeredThrough == nil, "1 is not answered yet")
        #expect(journal.lowestUnanswered == 1)
        // An acceptance writes nothing of its own: the answered mark moves past 1 and 2.
        journal.answered(seq: 1, code: nil)
        journal.answered(seq: 3, code: nil)
        let thirdWork = journal.takeWork()
        let third = try #require(thirdWork, "all answered: the mark is worth a commit")
        #expect(third.marks.answeredThrough == 3 && third.answers.isEmpty && third.sends.isEmpty)
        #expect(journal.unansweredCount == 0 && journal.lowestUnanswered == nil)
    }

    @Test func aStopWithdrawsWhatWasNeverHandedAndSendsNothingMore() throws {
        var journal = ForwardJournal(rows: Self.rows, credit: 1)
        for seq: Int64 in 1...2 { journal.read(Self.item(seq)) }
        let firstWork = journal.takeWork()
        let first = try #require(firstWork)
        #expect(first.sends.map(\.seq) == [1])
        journal.read(Self.item(3))
        let withdrawn = journal.withdraw()
        #expect(withdrawn.map(\.seq) == [3, 2], "the unjournaled, then those waiting for credit")
        for item in withdrawn { journal.answeredUnsent(seq: item.seq, code: ForwardJournal.Code.notDelivered) }
        journal.answered(seq: 1, code: nil)
        let lastWork = journal.takeWork()
        let last = try #require(lastWork)
        #expect(last.rows.map(\.seq) == [3], "its row is still written, then its answer")
        #expect(last.sends.isEmpty && last.marks.sentThrough == nil)
        #expect(Set(last.answers.map(\.seq)) == [2, 3], "the accepted 1 moves the mark instead")
        #expect(last.marks.answeredThrough == 1)
        let after = journal.takeWork()
        #expect(after == nil)
    }

    @Test func whatIsNotYetInTheStoreIsCountedUntilItsCommitAndFillsTheJournalAtItsLimit() throws {
        var journal = ForwardJournal(rows: Self.rows, credit: 2, unconfirmedLimit: 3)
        #expect(journal.unconfirmedCount == 0 && !journal.isFull && journal.withProvider == 0)
        for seq: Int64 in 1...2 { journal.read(Self.item(seq)) }
        #expect(journal.unconfirmedCount == 2 && !journal.isFull)
        let firstWork = journal.takeWork()
        let first = try #require(firstWork)
        #expect(first.sends.map(\.seq) == [1, 2])
        // Taken, not committed: still not known to be in the store, and not with the provider.
        #expect(journal.unconfirmedCount == 2 && journal.withProvider == 0 && journal.outstanding == 2)
        journal.read(Self.item(3))
        #expect(journal.unconfirmedCount == 3 && journal.isFull, "the limit: reading waits")
        // A failed commit is written again as it was: nothing changes until it commits.
        journal.committed()
        #expect(journal.unconfirmedCount == 1 && !journal.isFull, "1 and 2 are in the store; 3 is not")
        #expect(journal.withProvider == 2, "handed once their commit was done")
        let secondWork = journal.takeWork()
        let second = try #require(secondWork)
        #expect(second.rows.map(\.seq) == [3] && second.sends.isEmpty, "no credit: 3 waits, journaled")
        #expect(journal.unconfirmedCount == 1 && journal.withProvider == 2)
        journal.answered(seq: 1, code: nil)
        journal.committed()
        #expect(journal.unconfirmedCount == 0 && journal.withProvider == 1)
        let thirdWork = journal.takeWork()
        let third = try #require(thirdWork)
        #expect(third.sends.map(\.seq) == [3])
        #expect(journal.withProvider == 1 && journal.outstanding == 2, "3 is with the provider only once committed")
        journal.committed()
        #expect(journal.withProvider == 2 && journal.unconfirmedCount == 0)
    }

    static func row(_ seq: Int64, instance: Int64 = 5, answer: Int64? = nil, n: Int? = nil) -> BridgeStateStore.JournalRow {
        let key = BridgeHarness.key(n ?? Int(seq))
        return BridgeStateStore.JournalRow(
            instance: instance, seq: seq, tenant: "app", token: key.token, payload: key.payload, expiry: key.expiry,
            priority: key.priority, answer: answer, recordedAt: 1_000 + seq)
    }

    @Test func recoveryDecidesEachRowByTheTable() {
        var leftover = BridgeStateStore.JournalLeftover()
        leftover.marks = [5: BridgeStateStore.JournalMarks(sentThrough: 4, answeredThrough: 1)]
        leftover.rows = [
            Self.row(1),  // at the answered mark, no answer of its own: accepted
            Self.row(2, answer: ResendRecord.Answer.refused(.invalidToken).storeCode),  // record: refused
            Self.row(3, answer: ForwardJournal.Code.notDelivered),  // its client resends it
            Self.row(4),  // sent, no answer: maybe delivered
            Self.row(5),  // never sent: forwarded
            Self.row(6, answer: ForwardJournal.Code.forwardAgain),  // its client left: forwarded
            Self.row(7, answer: ResendRecord.Answer.accepted.storeCode, n: 1),  // the same content as 1: a second entry
        ]
        // The record already holds the notification row 1 was made for.
        let recordRow = BridgeStateStore.ResendRow(
            instance: 5, serial: 0, tenant: "app", token: BridgeHarness.key(1).token, payload: BridgeHarness.key(1).payload,
            expiry: BridgeHarness.key(1).expiry, priority: BridgeHarness.key(1).priority, answer: 0, recordedAt: 1_000)
        let plan = JournalRecovery(recordRows: [recordRow], leftover: leftover)
        #expect(plan.maybeDelivered == 1)
        #expect(plan.forward.map(\.resendKey) == [BridgeHarness.key(5), BridgeHarness.key(6)])
        #expect(plan.record.map(\.answer) == [0, 65_544, 1, 0], "the record row, then rows 2, 4 and 7 (1 is held already)")
        #expect(plan.record.map(\.recordedAt) == [1_000, 1_002, 1_004, 1_007])
        // Rows to forward read before the retention's start are dropped and counted.
        let late = JournalRecovery(recordRows: [], leftover: leftover, forwardSince: 1_006)
        #expect(late.forward.map(\.resendKey) == [BridgeHarness.key(6)] && late.tooOld == 1)
    }
}
