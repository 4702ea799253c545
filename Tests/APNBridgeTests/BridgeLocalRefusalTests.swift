import APNBridge
import APNWire
import Testing

/// Frames the decoder refuses itself: a refusal at the next ordinal, known at once, with
/// nothing after it read; reported like any other once the earlier answers are in.
@Suite struct BridgeLocalRefusalTests {
    @Test(arguments: [Command.simple, .enhanced, .frame])
    func locallyRefusedAfterPendingForwards(command: Command) {
        var harness = BridgeHarness()
        let connection = harness.connect()
        harness.receive(connection, 0...2)
        harness.locallyRefused(connection, .invalidTokenSize, identifier: command == .simple ? 0 : 103, command: command)
        #expect(harness.actions(connection) == forwards(0...2) + ["stop"])
        #expect(harness.receive(connection, [4]) == [nil])
        harness.answer(connection, 2, .accepted)
        harness.answer(connection, 0, .accepted)
        #expect(harness.actions(connection) == [], "1 is still unanswered")
        harness.answer(connection, 1, .accepted)
        let response = command == .simple ? [] : ["error(5,103)"]
        #expect(harness.actions(connection) == response + ["close", "finished"])
    }

    @Test func anEarlierUpstreamRefusalWins() {
        var harness = BridgeHarness()
        let connection = harness.connect()
        harness.receive(connection, 0...2)
        harness.locallyRefused(connection, .invalidPayloadSize, identifier: 103)
        harness.answer(connection, 1, .refused(.invalidToken))
        harness.answer(connection, 0, .accepted)
        #expect(
            harness.actions(connection)
                == forwards(0...2) + ["stop", "remember(2,pending)", "error(8,101)", "close"],
            "the refused frame is not remembered: it was never forwarded")
        harness.answer(connection, 2, .accepted)
        #expect(harness.actions(connection) == ["answer(2,accepted)", "finished"])
    }

    @Test func aLocalRefusalFirstIsReportedAtOnce() {
        var harness = BridgeHarness()
        let connection = harness.connect()
        harness.locallyRefused(connection, .missingDeviceToken, identifier: 42)
        #expect(harness.actions(connection) == ["stop", "error(2,42)", "close", "finished"])
    }

    @Test func unknownCommandClosesOnceTheEarlierAnswersAreIn() {
        var harness = BridgeHarness()
        let connection = harness.connect()
        harness.receive(connection, [0])
        harness.unknownCommand(connection)
        #expect(harness.actions(connection) == ["forward(0)", "stop"])
        harness.answer(connection, 0, .accepted)
        #expect(harness.actions(connection) == ["close", "finished"])
    }
}
