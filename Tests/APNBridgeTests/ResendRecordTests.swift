import APNBridge
import APNWire
import Testing

/// The record alone: a multiset by content, bounded in time and count, relaying the
/// answers of pending entries a connection took.
@Suite struct ResendRecordTests {
    static func source(_ ordinal: Int, connection: UInt64 = 1) -> Arrival {
        Arrival(connection: connection, ordinal: ordinal)
    }

    static let key = BridgeHarness.key

    @Test func entriesExpireAfterTheRetention() {
        var record = ResendRecord(retention: .seconds(60))
        record.insert(Self.key(0), answer: .accepted, from: Self.source(0), now: .zero)
        record.insert(Self.key(1), answer: .accepted, from: Self.source(1), now: .seconds(30))
        record.expire(now: .milliseconds(59_999))
        #expect(record.count == 2)
        record.expire(now: .seconds(60))
        #expect(record.count == 1)
        #expect(record.take(Self.key(0), for: Self.source(0, connection: 2), now: .seconds(60)) == nil)
        #expect(record.take(Self.key(1), for: Self.source(1, connection: 2), now: .seconds(89)) == .accepted)
    }

    @Test func theOldestMakesRoomAtCapacity() {
        var record = ResendRecord(capacity: 3)
        for n in 0...3 { record.insert(Self.key(n), answer: .accepted, from: Self.source(n), now: .zero) }
        #expect(record.count == 3)
        #expect(record.count(of: Self.key(0)) == 0, "the oldest was dropped")
        #expect((1...3).allSatisfy { record.count(of: Self.key($0)) == 1 })
    }

    @Test func aPendingEntryDroppedForCountIgnoresItsAnswer() {
        var record = ResendRecord(capacity: 1)
        record.insert(Self.key(0), answer: .pending, from: Self.source(0), now: .zero)
        record.insert(Self.key(1), answer: .accepted, from: Self.source(1), now: .zero)
        #expect(record.settle(Self.source(0), with: .accepted, now: .zero) == nil)
        #expect(record.count == 1)
        #expect(record.count(of: Self.key(0)) == 0)
    }

    @Test func capacityZeroKeepsNothing() {
        var record = ResendRecord(capacity: 0)
        record.insert(Self.key(0), answer: .accepted, from: Self.source(0), now: .zero)
        #expect(record.count == 0)
    }

    @Test func identicalEntriesAreCountedAndTakenOldestFirst() {
        var record = ResendRecord()
        record.insert(Self.key(7), answer: .accepted, from: Self.source(0), now: .zero)
        record.insert(Self.key(7), answer: .refused(.invalidToken), from: Self.source(1), now: .zero)
        record.insert(Self.key(8), answer: .accepted, from: Self.source(2), now: .zero)
        #expect(record.count(of: Self.key(7)) == 2)
        let claimant = Self.source(0, connection: 2)
        #expect(record.take(Self.key(7), for: claimant, now: .zero) == .accepted)
        #expect(record.count(of: Self.key(7)) == 1)
        #expect(record.take(Self.key(7), for: claimant, now: .zero) == .refused(.invalidToken))
        #expect(record.take(Self.key(7), for: claimant, now: .zero) == nil)
        #expect(record.count == 1)
    }

    @Test(arguments: [
        (BridgeAnswer.accepted, ResendRecord.Answer?.some(.accepted)),
        (.unregistered(since: 3), .accepted),
        (.maybeDelivered, .maybeDelivered),
        (.refused(.invalidPayloadSize), .refused(.invalidPayloadSize)),
        (.bridgeFailure, nil),
    ])
    func anUnclaimedPendingEntryKeepsItsAnswer(answer: BridgeAnswer, kept: ResendRecord.Answer?) {
        var record = ResendRecord()
        record.insert(Self.key(0), answer: .pending, from: Self.source(0), now: .zero)
        #expect(record.settle(Self.source(0), with: answer, now: .zero) == nil)
        #expect(record.take(Self.key(0), for: Self.source(0, connection: 2), now: .zero) == kept)
        #expect(record.settle(Self.source(0), with: answer, now: .zero) == nil, "settled once")
    }

    @Test func aClaimedPendingEntryRelaysItsAnswer() {
        var record = ResendRecord()
        record.insert(Self.key(0), answer: .pending, from: Self.source(5), now: .zero)
        record.insert(Self.key(1), answer: .pending, from: Self.source(6), now: .zero)
        let claimant = Self.source(0, connection: 2)
        #expect(record.take(Self.key(0), for: claimant, now: .zero) == .pending)
        #expect(record.take(Self.key(1), for: Self.source(1, connection: 2), now: .zero) == .pending)
        #expect(record.count == 0)
        #expect(record.claimCount == 2)
        // Claims outlive the retention: a session waits for each.
        #expect(
            record.settle(Self.source(5), with: .refused(.invalidToken), now: .seconds(600))
                == ResendRecord.Relay(claimant: claimant, answer: .refused(.invalidToken)))
        let relay = record.settle(Self.source(6), with: .unregistered(since: 1), now: .seconds(600))
        #expect(relay?.answer == .accepted, "feedback was queued where the answer arrived")
        #expect(record.claimCount == 0)
    }

    @Test func anExpiredPendingEntryIgnoresItsAnswer() {
        var record = ResendRecord(retention: .seconds(1))
        record.insert(Self.key(0), answer: .pending, from: Self.source(0), now: .zero)
        #expect(record.settle(Self.source(0), with: .accepted, now: .seconds(1)) == nil)
        #expect(record.count == 0)
        #expect(record.settle(Self.source(9), with: .accepted, now: .seconds(1)) == nil, "unknown source")
    }

    @Test func aHundredThousandIdenticalEntriesPassInLinearTime() {
        // One token and payload blasted: each key's FIFO must not shift on every take.
        var record = ResendRecord()
        let key = Self.key(1)
        for n in 0..<100_000 { record.insert(key, answer: .accepted, from: Self.source(n), now: .zero) }
        #expect(record.count(of: key) == 100_000)
        var taken = 0
        for n in 0..<100_000 where record.take(key, for: Self.source(n, connection: 2), now: .zero) != nil {
            taken += 1
        }
        #expect(taken == 100_000)
        #expect(record.count == 0)
    }

    @Test func takesFromTheMiddleKeepTheRecordSmall() {
        // Interleaved keys, every other one taken: the entries left are still found,
        // expire in order, and the rest are gone.
        var record = ResendRecord(retention: .seconds(10))
        for n in 0..<1_000 {
            record.insert(Self.key(n), answer: .accepted, from: Self.source(n), now: .milliseconds(Int64(n)))
        }
        for n in stride(from: 0, to: 1_000, by: 2) {
            #expect(record.take(Self.key(n), for: Self.source(n, connection: 2), now: .seconds(1)) == .accepted)
        }
        #expect(record.count == 500)
        record.expire(now: .milliseconds(10_500))
        #expect(record.count == 250, "those recorded before 0.5 s are gone")
        #expect(record.count(of: Self.key(499)) == 0)
        #expect(record.count(of: Self.key(501)) == 1)
    }
}
