import APNBridge
import APNWire
import Testing

/// Rule 4: answers arrive in any order; the client hears of the earliest refusal, once
/// everything before it is answered, and of nothing it accepted.
@Suite struct BridgeOrderingTests {
    @Test(arguments: [[0, 1, 2, 3, 4], [4, 3, 2, 1, 0], [2, 0, 4, 1, 3]])
    func acceptedInAnyOrderWritesNothing(order: [Int]) {
        var harness = BridgeHarness()
        let connection = harness.connect()
        #expect(harness.receive(connection, 0...4) == [0, 1, 2, 3, 4])
        #expect(harness.actions(connection) == forwards(0...4))
        for ordinal in order { harness.answer(connection, ordinal, .accepted) }
        #expect(harness.actions(connection) == [])
        #expect(harness.session(connection).unsettledCount == 0, "the accepted prefix is dropped")
        harness.receive(connection, [5])
        #expect(harness.actions(connection) == ["forward(5)"])
    }

    /// The error response does not close the connection (rule 9): the rows end with the
    /// client closing once it read it, which reports the refusal distance.
    static let refusals: [AnswerCase] = [
        AnswerCase(
            "a later refusal answered first waits for every earlier answer",
            [
                step(5, .refused(.invalidToken)),
                step(0, .accepted), step(1, .accepted), step(3, .accepted), step(4, .accepted),
                step(6, .accepted),
                step(2, .accepted, ["remember(6,accepted)"] + pending(7...9) + ["error(8,105)"]),
                step(7, .accepted, ["answer(7,accepted)"]),
                step(8, .refused(.invalidToken), ["answer(8,refused 8)"]),
                step(9, .unregistered(since: 1_700_000_001), ["feedback(9,1700000001)", "answer(9,unregistered)"]),
                clientCloses(["distance(4)", "finished"]),
            ]),
        AnswerCase(
            "two refusals, the later answered first: the earliest is reported",
            [
                step(7, .refused(.invalidToken)),
                step(3, .refused(.invalidPayloadSize)),
                step(0, .accepted), step(1, .accepted),
                step(2, .accepted, pending(4...6) + ["remember(7,refused 8)"] + pending(8...9) + ["error(7,103)"]),
                clientCloses(["distance(6)"]),
            ]),
        AnswerCase(
            "a refusal of the first notification is reported at once",
            [step(0, .refused(.invalidToken), pending(1...9) + ["error(8,100)"]), clientCloses(["distance(9)"])]),
        AnswerCase(
            "a refusal after an accepted prefix is reported at once",
            received: 6,
            [
                step(0, .accepted), step(2, .accepted), step(1, .accepted), step(3, .accepted),
                step(4, .refused(.processingError), ["remember(5,pending)", "error(1,104)"]),
                step(5, .accepted, ["answer(5,accepted)"]),
                clientCloses(["distance(1)", "finished"]),
            ]),
        AnswerCase(
            "an earlier refusal answered after a later one that waits",
            received: 4,
            [
                step(1, .accepted),
                step(3, .refused(.invalidToken)),
                step(2, .refused(.missingPayload)),
                step(0, .accepted, ["remember(3,refused 8)", "error(4,102)"]),
                clientCloses(["distance(1)", "finished"]),
            ]),
    ]

    @Test(arguments: refusals)
    func earliestRefusalOnceEverythingBeforeItIsAnswered(row: AnswerCase) {
        row.check()
    }

    @Test(arguments: [
        AnswerCase(
            "410 is accepted silently, with feedback for the token", received: 3,
            [
                step(1, .unregistered(since: 1_700_000_000), ["feedback(1,1700000000)"]),
                step(0, .accepted), step(2, .accepted),
            ]),
        AnswerCase(
            "maybe-delivered is accepted silently", received: 3,
            [step(2, .maybeDelivered), step(0, .maybeDelivered), step(1, .accepted)]),
    ])
    func acceptancesWriteNothing(row: AnswerCase) {
        row.check()
    }

    /// Rule 9: what the client writes after a refusal is read and forwarded within the
    /// window, and after the error response collected (forwarded and remembered at once)
    /// until the decoder stops, here on a frame it refuses itself.
    @Test func whatFollowsARefusalIsReadForwardedAndRemembered() {
        var harness = BridgeHarness()
        let connection = harness.connect()
        harness.receive(connection, 0...2)
        harness.answer(connection, 2, .refused(.invalidToken))
        #expect(harness.actions(connection) == forwards(0...2), "a refusal stops nothing")
        #expect(harness.receive(connection, 3...4) == [3, 4])
        #expect(harness.actions(connection) == forwards(3...4))
        harness.answer(connection, 0...1, .accepted)
        #expect(harness.actions(connection) == pending(3...4) + ["error(8,102)"], "written, the connection open")
        #expect(harness.receive(connection, [5]) == [5])
        #expect(harness.actions(connection) == ["forward(5)", "remember(5,pending)"])
        harness.locallyRefused(connection, .invalidTokenSize, identifier: 106)
        #expect(harness.actions(connection) == ["distance(3)", "stop", "close"], "no second error response")
        #expect(harness.receive(connection, [6]) == [nil])
        harness.answer(connection, 3...5, .accepted)
        #expect(harness.actions(connection) == ["answer(3,accepted)", "answer(4,accepted)", "answer(5,accepted)", "finished"])
        #expect(harness.forwarded(by: connection) == [0, 1, 2, 3, 4, 5])
    }

    @Test func identifiersAreNotKeys() {
        // Two notifications with the same identifier: answers name ordinals, and the
        // refusal names the identifier of the one refused.
        var harness = BridgeHarness()
        let connection = harness.connect()
        harness.send(connection, [BridgeHarness.note(0, identifier: 7), BridgeHarness.note(1, identifier: 7)])
        harness.answer(connection, 1, .refused(.invalidToken))
        harness.answer(connection, 0, .accepted)
        #expect(harness.actions(connection) == forwards(0...1) + ["error(8,7)"])
    }

    @Test(arguments: [Command.simple, .enhanced, .frame])
    func commandZeroRefusedClosesWithoutAResponse(command: Command) {
        var harness = BridgeHarness()
        let connection = harness.connect()
        harness.send(connection, [BridgeHarness.note(0, command: command), BridgeHarness.note(1, command: command)])
        harness.answer(connection, 1, .refused(.invalidToken))
        harness.answer(connection, 0, .accepted)
        // Command 0 has no response: reading stops and the connection closes. Commands 1
        // and 2 are answered and read on (rule 9).
        let ending = command == .simple ? ["stop", "close", "finished"] : ["error(8,101)"]
        #expect(harness.actions(connection) == forwards(0...1) + ending)
    }
}
