import APNBridge
import APNWire
import Testing

/// Rule 7: what a closed connection forwarded after its resend point is answered from the
/// tenant's record when the client resends it, never forwarded twice; nothing else is
/// deduplicated.
@Suite struct BridgeResendTests {
    /// Connection A, the first of a harness.
    static let a: UInt64 = 1

    /// Connection A: 0 … 9 forwarded (identifiers 100 …), 5 refused; when it is
    /// reported 6 and 7 are accepted, 8 refused (8) unless `eight` says otherwise, and 9
    /// unanswered.
    static func refusedAtFive(eight: BridgeAnswer = .refused(.invalidToken)) -> BridgeHarness {
        var harness = BridgeHarness()
        let a = harness.connect()
        #expect(a == Self.a)
        harness.receive(a, 0...9)
        harness.answer(a, 5, .refused(.invalidToken))
        harness.answer(a, 6...7, .accepted)
        harness.answer(a, 8, eight)
        harness.answer(a, 0...4, .accepted)
        let remembered = "remember(8,\(BridgeHarness.name(of: eight)))"
        #expect(
            harness.actions(a)
                == forwards(0...9) + ["remember(6,accepted)", "remember(7,accepted)", remembered,
                    "remember(9,pending)", "error(8,105)"])
        #expect(harness.record.count == 4)
        // The client read the response and closed; nothing more was collected.
        harness.clientClosed(a)
        #expect(harness.actions(a) == ["distance(4)"])
        return harness
    }

    /// The resends of `ns` with new identifiers `200 + n` (then `300 + n` …, by `round`).
    static func resent(_ ns: ClosedRange<Int>, round: Int = 2) -> [BridgedNotification] {
        ns.map { BridgeHarness.note($0, identifier: UInt32(round * 100 + $0)) }
    }

    @Test func resentAfterARefusalNothingIsForwardedTwice() {
        var harness = Self.refusedAtFive()
        let a = Self.a
        let b = harness.connect()
        #expect(harness.send(b, Self.resent(6...9)) == [0, 1, 2, 3], "9 follows B's refusal: collected (rule 9)")
        #expect(
            harness.actions(b) == ["error(8,208)", "remember(3,pending)"],
            "6 and 7 accepted silently; 8 refused again, naming its new identifier; 9 taken from the record, awaiting A's answer, and remembered again for B's client")
        #expect(harness.forwarded(by: b) == [])
        harness.clientClosed(b)
        #expect(harness.actions(b) == ["distance(1)"])

        // The client resends 9 once more; its answer has not come yet.
        let c = harness.connect()
        #expect(harness.send(c, Self.resent(9...9, round: 3)) == [0])
        #expect(harness.actions(c) == [], "taken from the record, not forwarded")
        #expect(harness.record.claimCount == 2, "B's claim on A's entry, C's on B's")
        harness.answer(a, 9, .accepted)
        #expect(harness.actions(a) == ["answer(9,accepted)", "finished"])
        #expect(harness.actions(b) == ["answer(3,accepted)", "finished"], "A's answer passed on through B")
        #expect(harness.record.claimCount == 0)
        harness.shutdown(c)
        #expect(harness.actions(c) == ["stop", "error(10,309)", "close", "finished"], "9's answer reached C")
        #expect(harness.upstream.map(\.n) == Array(0...9), "each notification went upstream once")
    }

    @Test(arguments: [
        (BridgeAnswer.refused(.invalidToken), ["error(8,209)"]),
        (.accepted, []),
        (.unregistered(since: 77), []),
        (.maybeDelivered, []),
        (.bridgeFailure, ["stop", "error(10,208)", "close", "finished"]),
    ] as [(BridgeAnswer, [String])])
    func aPendingEntryIsAnsweredWhenItsAnswerArrives(late: BridgeAnswer, expected: [String]) {
        var harness = Self.refusedAtFive(eight: .accepted)
        let a = Self.a
        let b = harness.connect()
        #expect(harness.send(b, Self.resent(6...9)) == [0, 1, 2, 3])
        #expect(harness.actions(b) == [], "none forwarded: 6, 7, 8 accepted, 9 awaits A's answer")
        harness.answer(a, 9, late)
        let feedback = late == .unregistered(since: 77) ? ["feedback(9,77)"] : []
        #expect(harness.actions(a) == feedback + ["answer(9,\(BridgeHarness.name(of: late)))", "finished"])
        #expect(harness.actions(b) == expected, "no second feedback: A queued it")
        #expect(harness.upstream.count == 10)
    }

    @Test func anIdenticalNotificationNotInTheRecordIsForwarded() {
        var harness = BridgeHarness()
        let a = harness.connect()
        harness.send(a, [BridgeHarness.note(1), BridgeHarness.note(1), BridgeHarness.note(1, identifier: 9)])
        #expect(harness.actions(a) == forwards(0...2), "sent three times on purpose: three go out")

        // After a refusal one copy is recorded; a resend takes it, a further copy goes out.
        var resend = Self.refusedAtFive()
        resend.answer(Self.a, 9, .accepted)
        let b = resend.connect()
        resend.send(b, Self.resent(9...9) + Self.resent(9...9, round: 3))
        #expect(resend.actions(b) == ["forward(1)"])
        #expect(resend.forwarded(by: b) == [9])
    }

    @Test func identicalEntriesAreTakenOneAtATime() {
        var harness = BridgeHarness()
        let a = harness.connect()
        harness.send(a, [BridgeHarness.note(0), BridgeHarness.note(7), BridgeHarness.note(7, identifier: 108)])
        harness.answer(a, 0, .refused(.invalidToken))
        #expect(harness.record.count(of: BridgeHarness.key(7)) == 2)
        harness.answer(a, 1, .accepted)
        harness.answer(a, 2, .refused(.invalidToken))

        // The oldest copy first: accepted; then the refused one.
        let b = harness.connect()
        harness.send(b, [BridgeHarness.note(7, identifier: 207)])
        #expect(harness.actions(b) == [])
        #expect(harness.record.count(of: BridgeHarness.key(7)) == 1)
        harness.send(b, [BridgeHarness.note(7, identifier: 208)])
        #expect(harness.actions(b) == ["error(8,208)"])
        #expect(harness.record.count(of: BridgeHarness.key(7)) == 0)

        let c = harness.connect()
        harness.send(c, [BridgeHarness.note(7, identifier: 307)])
        #expect(harness.actions(c) == ["forward(0)"], "the record is used up: a third copy goes out")
    }

    @Test func maybeDeliveredIsNeverForwardedAgain() {
        var harness = BridgeHarness()
        let a = harness.connect()
        harness.receive(a, 0...1)
        harness.answer(a, 1, .maybeDelivered)
        harness.answer(a, 0, .refused(.invalidToken))
        #expect(
            harness.actions(a)
                == forwards(0...1) + ["remember(1,maybeDelivered)", "error(8,100)"])
        let b = harness.connect()
        harness.send(b, Self.resent(1...1))
        #expect(harness.actions(b) == [])
        #expect(harness.forwarded(by: b) == [])
    }

    @Test func aBridgeFailureAfterTheResendPointIsForwardedAgain() {
        var harness = BridgeHarness()
        let a = harness.connect()
        harness.receive(a, 0...2)
        harness.answer(a, 0, .refused(.invalidToken))
        harness.answer(a, 1, .bridgeFailure)
        harness.answer(a, 2, .accepted)
        let b = harness.connect()
        harness.send(b, Self.resent(1...2))
        #expect(harness.forwarded(by: b) == [1], "1 was never delivered; 2 was")
    }

    @Test func theRecordForgetsAfterItsRetention() {
        var harness = Self.refusedAtFive()
        harness.answer(Self.a, 9, .accepted)
        harness.advance(seconds: 599.9)
        let b = harness.connect()
        harness.send(b, Self.resent(6...6))
        #expect(harness.forwarded(by: b) == [], "within the retention")
        harness.advance(seconds: 0.1)
        harness.send(b, Self.resent(7...7))
        #expect(harness.forwarded(by: b) == [7], "600 s after it was recorded, a resend goes out again")
    }

    @Test func theRecordKeepsTheNewestAtItsCapacity() {
        var harness = BridgeHarness(capacity: 2)
        let a = harness.connect()
        harness.receive(a, 0...3)
        harness.answer(a, 1...3, .accepted)
        harness.answer(a, 0, .refused(.invalidToken))
        #expect(harness.record.count == 2, "1 made room for 3")
        let b = harness.connect()
        harness.send(b, Self.resent(1...3))
        #expect(harness.forwarded(by: b) == [1], "a resend of a dropped entry goes out again")
    }

    @Test func aTakenPendingEntryFollowsAFurtherReconnect() {
        var harness = Self.refusedAtFive(eight: .accepted)
        let a = Self.a
        // B takes 9's pending entry but ends before it is answered: B's refusal at 6.
        let b = harness.connect()
        harness.send(b, Self.resent(6...6) + [BridgeHarness.note(20, identifier: 220)] + Self.resent(9...9))
        harness.answer(b, 1, .refused(.invalidToken))
        #expect(harness.actions(b) == ["forward(1)", "remember(2,pending)", "error(8,220)"])
        harness.clientClosed(b)
        #expect(harness.actions(b) == ["distance(1)"])
        // A's answer for 9 goes to B, which passes it into its own record entry.
        harness.answer(a, 9, .refused(.invalidToken))
        #expect(harness.actions(b) == ["answer(2,refused 8)", "finished"])
        // C resends 9 a second time: refused from the record, naming C's identifier.
        let c = harness.connect()
        harness.send(c, Self.resent(9...9, round: 3))
        #expect(harness.actions(c) == ["error(8,309)"])
        #expect(harness.upstream.map(\.n) == Array(0...9) + [20])
    }
}
