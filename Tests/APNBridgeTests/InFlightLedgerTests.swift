import APNBridge
import APNTestSupport
import Testing

/// The process-wide bound's ledger (#42): never more held and promised than the limit,
/// room handed out in turn, a share at a time.
@Suite("Bridge: the in-flight ledger")
struct InFlightLedgerTests {
    @Test func unboundedGrantsWhatIsAskedAndCounts() {
        var ledger = InFlightLedger(limit: nil, grantLimit: 512)
        let ticket = ledger.join()
        #expect(ledger.reserve(ticket, want: 512) == 512)
        #expect(ledger.adjust(by: 300).isEmpty)
        #expect(ledger.release(512).isEmpty)
        #expect(ledger.used == 300 && ledger.peak == 300 && ledger.reserved == 0 && ledger.pauses == 0)
    }

    @Test func aConnectionGetsItsShareAndNoMoreThanTheRoom() {
        var ledger = InFlightLedger(limit: 300, grantLimit: 512)
        let a = ledger.join(), b = ledger.join(), c = ledger.join()
        #expect(ledger.reserve(a, want: 512) == 100, "a third of the limit each")
        _ = ledger.adjust(by: 100)
        _ = ledger.release(100)
        #expect(ledger.reserve(b, want: 512) == 100)
        _ = ledger.adjust(by: 100)
        _ = ledger.release(100)
        #expect(ledger.reserve(c, want: 40) == 40, "never more than asked")
        _ = ledger.adjust(by: 40)
        _ = ledger.release(40)
        #expect(ledger.reserve(c, want: 512) == 60, "never more than the room")
        _ = ledger.adjust(by: 60)
        _ = ledger.release(60)
        #expect(ledger.used == 300 && ledger.reserved == 0)
        #expect(ledger.reserve(a, want: 512) == 0, "the bound is reached: wait")
        #expect(ledger.waiting == 1 && ledger.pauses == 1)
    }

    @Test func roomGoesToTheWaitingInTurnAndNewcomersQueueBehindThem() {
        var ledger = InFlightLedger(limit: 300, grantLimit: 512)
        let a = ledger.join(), b = ledger.join(), c = ledger.join()
        _ = ledger.adjust(by: 300)
        #expect(ledger.reserve(b, want: 512) == 0)
        #expect(ledger.reserve(a, want: 512) == 0)
        #expect(ledger.reserve(b, want: 512) == 0, "asking again keeps its place")
        #expect(ledger.adjust(by: -20).isEmpty, "less than a chunk (an eighth of the limit) wakes nobody")
        #expect(ledger.adjust(by: -130) == [b, a], "in the order they came: b's share, then the 50 left to a")
        #expect(ledger.reserve(c, want: 512) == 0, "the room is promised: c waits")
        #expect(ledger.reserve(a, want: 512) == 50)
        #expect(ledger.reserve(b, want: 512) == 100)
        _ = ledger.adjust(by: 150)
        _ = ledger.release(150)
        #expect(ledger.adjust(by: -300) == [c])
        #expect(ledger.reserve(c, want: 512) == 100)
    }

    @Test func aConnectionThatLeavesGivesItsPromiseToTheNext() {
        var ledger = InFlightLedger(limit: 200, grantLimit: 512)
        let a = ledger.join(), b = ledger.join()
        _ = ledger.adjust(by: 200)
        #expect(ledger.reserve(a, want: 512) == 0)
        #expect(ledger.reserve(b, want: 512) == 0)
        #expect(ledger.adjust(by: -100) == [a])
        #expect(ledger.leave(a) == [b], "a's promise, unused, goes to b")
        #expect(ledger.reserve(b, want: 512) == 100, "b alone now: the whole room is its share")
        #expect(ledger.release(100).isEmpty, "a reservation taken is given back by its taker")
        #expect(ledger.leave(b).isEmpty)
        #expect(ledger.reserved == 0)
    }

    @Test func aNewLimitWakesTheWaiting() {
        var ledger = InFlightLedger(limit: 100, grantLimit: 512)
        let a = ledger.join()
        _ = ledger.adjust(by: 100)
        #expect(ledger.reserve(a, want: 512) == 0)
        #expect(ledger.setLimit(200) == [a])
        #expect(ledger.reserve(a, want: 512) == 100)
        _ = ledger.release(100)
        _ = ledger.adjust(by: 100)
        #expect(ledger.reserve(a, want: 512) == 0)
        #expect(ledger.setLimit(nil) == [a], "no bound: it reads on")
        #expect(ledger.reserve(a, want: 512) == 512)
    }

    /// Random connections reserving, holding, settling and leaving: held and promised
    /// never pass the limit, and nobody waits while a chunk of room is free.
    @Test(arguments: 0..<20) func neverMoreThanTheLimit(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        let limit = Int(random.next() % 500) + 1
        var ledger = InFlightLedger(limit: limit, grantLimit: 64)
        var live: [InFlightLedger.Ticket] = []
        var holding: [InFlightLedger.Ticket: Int] = [:]
        for _ in 0..<2_000 {
            switch random.next() % 10 {
            case 0 where live.count < 30:
                live.append(ledger.join())
            case 1 where !live.isEmpty:
                let ticket = live.remove(at: Int(random.next() % UInt64(live.count)))
                _ = ledger.leave(ticket)
            case 2...5 where !live.isEmpty:
                let ticket = live[Int(random.next() % UInt64(live.count))]
                let room = ledger.reserve(ticket, want: 64)
                let used = room == 0 ? 0 : Int(random.next() % UInt64(room + 1))
                _ = ledger.adjust(by: used)
                holding[ticket, default: 0] += used
                _ = ledger.release(room)
            case 6...9:
                guard let (ticket, held) = holding.first(where: { $0.value > 0 }) else { continue }
                let settled = Int(random.next() % UInt64(held)) + 1
                holding[ticket] = held - settled
                _ = ledger.adjust(by: -settled)
            default:
                continue
            }
            #expect(ledger.used + ledger.reserved <= limit)
            #expect(ledger.peak <= limit)
        }
    }
}
