import APNBridge
import APNFeedbackStore
import APNWire
import Testing

/// #41: a journaling record reports every change, in order, for the store; rows read back
/// restore it (pending as maybe delivered), and answer codes survive the round trip.
@Suite struct ResendRecordJournalTests {
    static let key = BridgeHarness.key

    static func source(_ ordinal: Int, connection: UInt64 = 1) -> Arrival {
        Arrival(connection: connection, ordinal: ordinal)
    }

    @Test func everyChangeIsReportedInOrder() {
        var record = ResendRecord(retention: .seconds(60), capacity: 2, journaling: true)
        record.insert(Self.key(0), answer: .pending, from: Self.source(0), now: .zero)
        record.insert(Self.key(1), answer: .accepted, from: Self.source(1), now: .seconds(1))
        #expect(record.settle(Self.source(0), with: .refused(.invalidToken), now: .seconds(2)) == nil)
        // At capacity the oldest (serial 0) goes.
        record.insert(Self.key(2), answer: .accepted, from: Self.source(2), now: .seconds(3))
        #expect(record.take(Self.key(1), for: Self.source(0, connection: 2), now: .seconds(4)) == .accepted)
        record.expire(now: .seconds(63))
        #expect(
            record.takeChanges() == [
                .inserted(serial: 0, key: Self.key(0), answer: .pending, recordedAt: .zero),
                .inserted(serial: 1, key: Self.key(1), answer: .accepted, recordedAt: .seconds(1)),
                .answered(serial: 0, .refused(.invalidToken)),
                .removed(serial: 0),
                .inserted(serial: 2, key: Self.key(2), answer: .accepted, recordedAt: .seconds(3)),
                .removed(serial: 1),
                .removed(serial: 2),
            ])
        #expect(record.takeChanges().isEmpty, "taken once")
    }

    @Test func aRecordNotJournalingKeepsNoChanges() {
        var record = ResendRecord()
        record.insert(Self.key(0), answer: .accepted, from: Self.source(0), now: .zero)
        #expect(record.takeChanges().isEmpty)
    }

    @Test func aBridgeFailureSettlingAPendingEntryRemovesIt() {
        var record = ResendRecord(journaling: true)
        record.insert(Self.key(0), answer: .pending, from: Self.source(0), now: .zero)
        _ = record.takeChanges()
        #expect(record.settle(Self.source(0), with: .bridgeFailure, now: .zero) == nil)
        #expect(record.takeChanges() == [.removed(serial: 0)])
    }

    @Test(
        "answer codes round-trip",
        arguments: [ResendRecord.Answer.accepted, .maybeDelivered, .pending, .refused(.invalidToken), .refused(.shutdown)])
    func answerCodes(_ answer: ResendRecord.Answer) {
        #expect(ResendRecord.Answer(storeCode: answer.storeCode) == answer)
    }

    @Test func answerCodesAreFixed() {
        // Rows outlive the process that wrote them: the codes are a format.
        #expect(ResendRecord.Answer.accepted.storeCode == 0)
        #expect(ResendRecord.Answer.maybeDelivered.storeCode == 1)
        #expect(ResendRecord.Answer.pending.storeCode == 2)
        #expect(ResendRecord.Answer.refused(.invalidToken).storeCode == 65_544)
        #expect(ResendRecord.Answer(storeCode: 3) == nil)
    }

    @Test func anotherBridgesRowsRestoreTheRecordPendingAsMaybeDeliveredAndAreJournaledAsTheirsSay() {
        let old = ResendRecordRows(instance: 7, tenant: "app", originMilliseconds: 1_000_000)
        let rows = [
            old.row(serial: 4, key: Self.key(0), answer: .accepted, recordedAt: .seconds(1)),
            old.row(serial: 5, key: Self.key(1), answer: .pending, recordedAt: .seconds(2)),
            old.row(serial: 6, key: Self.key(2), answer: .refused(.invalidToken), recordedAt: .seconds(3)),
            BridgeStateStore.ResendRow(
                instance: 7, serial: 9, tenant: "app", token: [1], payload: [2], expiry: 0, priority: 10, answer: 99,
                recordedAt: 1_004_000),
        ]
        // This bridge started 100 s later; it took the rows over under serials -1, -2, -3.
        let new = ResendRecordRows(instance: 8, tenant: "app", originMilliseconds: 1_100_000)
        var record = ResendRecord(retention: .seconds(600), journaling: true)
        new.restore(rows, into: &record) { .stored(serial: UInt64(bitPattern: -$0.serial + 3)) }
        #expect(record.count == 3, "an unknown answer code is skipped")
        #expect(record.takeChanges().isEmpty, "their rows are in the store already")
        #expect(record.take(Self.key(1), for: Self.source(0, connection: 2), now: .zero) == .maybeDelivered, "pending: maybe")
        #expect(record.take(Self.key(2), for: Self.source(1, connection: 2), now: .zero) == .refused(.invalidToken))
        #expect(record.takeChanges() == [.removed(serial: UInt64(bitPattern: -2)), .removed(serial: UInt64(bitPattern: -3))])

        // A live peer's rows: used, never journaled.
        var peers = ResendRecord(retention: .seconds(600), journaling: true)
        new.restore(rows, into: &peers) { _ in .peer }
        #expect(peers.take(Self.key(0), for: Self.source(0, connection: 2), now: .zero) == .accepted)
        #expect(peers.takeChanges().isEmpty)

        // Recorded when they were, not at the restart: older than the retention, they go.
        var short = ResendRecord(retention: .seconds(98), journaling: true)
        new.restore(rows, into: &short) { _ in .peer }
        short.expire(now: .zero)
        #expect(short.count == 1, "only the one recorded 97 s before the start is kept")
    }
}
