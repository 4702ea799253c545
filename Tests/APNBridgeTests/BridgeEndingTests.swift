import APNBridge
import APNWire
import Testing

/// How a connection ends other than by an ordinary refusal: the bridge's own failure
/// (status 10), shutdown (status 10 once answered, or at the grace period's end), and
/// the client closing first.
@Suite struct BridgeEndingTests {
    @Test(arguments: [
        AnswerCase(
            "a bridge failure ends with status 10 naming the accepted prefix", received: 5,
            [
                step(0, .accepted), step(1, .accepted), step(3, .accepted),
                step(2, .bridgeFailure, ["stop", "remember(3,accepted)", "remember(4,pending)", "error(10,101)", "close"]),
                step(4, .maybeDelivered, ["answer(4,maybeDelivered)", "finished"]),
            ]),
        AnswerCase(
            "a bridge failure of the first names identifier 0", received: 2,
            [step(0, .bridgeFailure, ["stop", "remember(1,pending)", "error(10,0)", "close"])]),
        AnswerCase(
            "a bridge failure waits for the earlier answers", received: 4,
            [
                step(2, .bridgeFailure, ["stop"]),
                step(0, .accepted),
                step(1, .accepted, ["remember(3,pending)", "error(10,101)", "close"]),
            ]),
        AnswerCase(
            "an earlier refusal wins over a bridge failure", received: 4,
            [
                step(2, .bridgeFailure, ["stop"]),
                step(1, .refused(.invalidToken)),
                step(0, .accepted, ["remember(3,pending)", "error(8,101)", "close"]),
            ]),
        AnswerCase(
            "a bridge failure after the refusal point is not remembered: resending it goes out", received: 3,
            [
                step(2, .bridgeFailure, ["stop"]),
                step(0, .refused(.invalidToken), ["remember(1,pending)", "error(8,100)", "close"]),
                step(1, .accepted, ["answer(1,accepted)", "finished"]),
            ]),
    ])
    func bridgeFailure(row: AnswerCase) {
        row.check()
    }

    @Test func shutdownWaitsForEveryAnswerThenStatus10() {
        var harness = BridgeHarness()
        let connection = harness.connect()
        harness.receive(connection, 0...3)
        harness.answer(connection, 1, .accepted)
        harness.shutdown(connection)
        #expect(harness.actions(connection) == forwards(0...3) + ["stop"])
        #expect(harness.receive(connection, [4]) == [nil])
        harness.answer(connection, 0, .accepted)
        harness.answer(connection, 3, .unregistered(since: 5))
        #expect(harness.actions(connection) == ["feedback(3,5)"])
        harness.answer(connection, 2, .accepted)
        #expect(harness.actions(connection) == ["error(10,103)", "close", "finished"])
    }

    /// #41: a bridge that journals what it reads reads on through the grace (up to ten
    /// windows), so that what the client wrote is kept for the next bridge, not lost in
    /// buffers at the close; status 10 still names the end of the accepted prefix.
    @Test func aJournalingShutdownReadsOnThroughTheGraceThenStatus10() {
        var harness = BridgeHarness()
        let connection = harness.connect(window: 2)
        harness.receive(connection, 0...1)
        #expect(harness.actions(connection) == forwards(0...1) + ["pause"])
        harness.shutdown(connection, readingOn: true)
        #expect(harness.actions(connection) == ["resume"], "ten windows while the grace lasts")
        #expect(harness.receive(connection, 2...19).allSatisfy { $0 != nil })
        #expect(harness.actions(connection) == forwards(2...19) + ["pause"])
        harness.answer(connection, 0, .accepted)
        harness.graceExpired(connection)
        let actions = harness.actions(connection)
        #expect(actions.contains("error(10,100)") && actions.contains("close"), "\(actions)")
        #expect(harness.receive(connection, [20]) == [nil], "nothing read after the end")
    }

    @Test func shutdownReportsARefusalThatComesFirst() {
        var harness = BridgeHarness()
        let connection = harness.connect()
        harness.receive(connection, 0...2)
        harness.shutdown(connection)
        harness.answer(connection, 2, .accepted)
        harness.answer(connection, 0, .accepted)
        harness.answer(connection, 1, .refused(.invalidToken))
        #expect(
            harness.actions(connection)
                == forwards(0...2) + ["stop", "remember(2,accepted)", "error(8,101)", "close", "finished"])
    }

    @Test func graceExpiredRemembersWhatIsUnanswered() {
        var harness = BridgeHarness()
        let connection = harness.connect()
        harness.receive(connection, 0...3)
        harness.answer(connection, 0, .accepted)
        harness.answer(connection, 2, .accepted)
        harness.graceExpired(connection)
        #expect(harness.actions(connection) == forwards(0...3), "no grace period without a shutdown")
        harness.shutdown(connection)
        harness.graceExpired(connection)
        #expect(
            harness.actions(connection)
                == ["stop", "remember(1,pending)", "remember(2,accepted)", "remember(3,pending)", "error(10,100)", "close"])
        harness.answer(connection, 1, .accepted)
        harness.answer(connection, 3, .unregistered(since: 9))
        #expect(
            harness.actions(connection)
                == ["answer(1,accepted)", "feedback(3,9)", "answer(3,unregistered)", "finished"])
    }

    @Test func shutdownWithNothingSentNamesIdentifierZero() {
        var harness = BridgeHarness()
        let connection = harness.connect()
        harness.shutdown(connection)
        #expect(harness.actions(connection) == ["stop", "error(10,0)", "close", "finished"])
        harness.shutdown(connection)
        harness.clientClosed(connection)
        #expect(harness.actions(connection) == [], "the connection is over")
    }

    /// The client closed without being told anything: it cannot know what was accepted, so
    /// the newest of the accepted prefix are remembered too (rule 7).
    @Test func clientClosedRemembersEverythingAfterTheAcceptedPrefix() {
        var harness = BridgeHarness()
        let connection = harness.connect()
        harness.receive(connection, 0...3)
        harness.answer(connection, 0, .accepted)
        harness.answer(connection, 2, .refused(.invalidToken))
        harness.clientClosed(connection)
        #expect(
            harness.actions(connection)
                == forwards(0...3) + ["remember(0,accepted)", "remember(1,pending)", "remember(2,refused 8)", "remember(3,pending)"],
            "nothing is written")
        #expect(harness.receive(connection, [4]) == [nil])
        harness.answer(connection, 1, .accepted)
        harness.answer(connection, 1, .accepted)
        #expect(harness.actions(connection) == ["answer(1,accepted)"], "a second answer is ignored")
        harness.answer(connection, 3, .bridgeFailure)
        #expect(harness.actions(connection) == ["answer(3,bridgeFailure)", "finished"])
        #expect(harness.record.count == 3, "the bridge failure left the record: a resend goes out")
    }

    @Test func clientClosedWithNothingPendingFinishes() {
        var harness = BridgeHarness()
        let connection = harness.connect()
        harness.receive(connection, [0])
        harness.answer(connection, 0, .accepted)
        harness.clientClosed(connection)
        #expect(harness.actions(connection) == ["forward(0)", "remember(0,accepted)", "finished"])
    }

    /// Only the newest of the accepted prefix (the default window's count, or the window if
    /// larger): older ones the client had long since stopped waiting for.
    @Test func clientClosedRemembersTheNewestOfTheAcceptedPrefix() {
        var harness = BridgeHarness()
        let limit = BridgeSession.defaultWindow
        let connection = harness.connect(window: 3)
        for n in 0..<(limit + 3) {
            harness.receive(connection, [n])
            harness.answer(connection, n, n == limit + 1 ? .maybeDelivered : .accepted)
        }
        _ = harness.actions(connection)
        harness.clientClosed(connection)
        let remembered = harness.actions(connection)
        #expect(remembered.count == limit + 1 && remembered.last == "finished")
        #expect(remembered.first == "remember(3,accepted)", "the oldest three left the tail")
        #expect(remembered.contains("remember(\(limit + 1),maybeDelivered)"))
        let again = harness.connect()
        harness.receive(again, 0...5)
        #expect(harness.forwarded(by: again) == [0, 1, 2], "the older ones are forwarded again")
    }
}
