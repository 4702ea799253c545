import APNBridge
import APNWire
import Testing

/// Rule 8: at most `window` notifications unsettled, counted from the first not in the
/// accepted prefix, so memory stays bounded even while one answer is slow.
@Suite struct BridgeWindowTests {
    @Test(arguments: [1, 2, 5])
    func pausesAtTheWindowAndResumesBelowIt(window: Int) {
        var harness = BridgeHarness()
        let connection = harness.connect(window: window)
        harness.receive(connection, 0..<window)
        #expect(harness.actions(connection) == forwards(0...window - 1) + ["pause"])
        harness.answer(connection, 0, .accepted)
        #expect(harness.actions(connection) == ["resume"])
        harness.receive(connection, [window])
        #expect(harness.actions(connection) == ["forward(\(window))", "pause"])
    }

    @Test func aLaterAnswerDoesNotResumeWhileTheFirstIsUnanswered() {
        var harness = BridgeHarness()
        let connection = harness.connect(window: 3)
        harness.receive(connection, 0...2)
        #expect(harness.actions(connection) == forwards(0...2) + ["pause"])
        harness.answer(connection, 2, .accepted)
        harness.answer(connection, 1, .accepted)
        #expect(harness.actions(connection) == [], "0 still holds the span at 3")
        #expect(harness.session(connection).unsettledCount == 3)
        harness.answer(connection, 0, .accepted)
        #expect(harness.actions(connection) == ["resume"])
        #expect(harness.session(connection).unsettledCount == 0)
    }

    @Test func aStoppedConnectionDoesNotResume() {
        var harness = BridgeHarness()
        let connection = harness.connect(window: 2)
        harness.receive(connection, 0...1)
        harness.answer(connection, 1, .bridgeFailure)
        harness.answer(connection, 0, .accepted)
        #expect(harness.actions(connection) == forwards(0...1) + ["pause", "stop", "error(10,100)", "close", "finished"])
    }

    /// Rule 9: after a refusal's response the reading resumes past the window, and the
    /// collection ends at ``BridgeSession/collectionLimit`` notifications.
    @Test func aRefusalResumesPastTheWindowUpToTheCollectionLimit() {
        var harness = BridgeHarness()
        let connection = harness.connect(window: 2)
        harness.receive(connection, 0...1)
        harness.answer(connection, 1, .refused(.invalidToken))
        harness.answer(connection, 0, .accepted)
        #expect(harness.actions(connection) == forwards(0...1) + ["pause", "error(8,101)", "resume"])
        let limit = BridgeSession.collectionLimit
        #expect(harness.receive(connection, 2..<(2 + limit)) == Array(2..<(2 + limit)))
        let collected = (2..<(2 + limit)).flatMap { ["forward(\($0))", "remember(\($0),pending)"] }
        #expect(harness.actions(connection) == collected + ["distance(\(limit))", "stop", "close"])
        #expect(harness.receive(connection, [99]) == [nil], "nothing past the limit is read")
    }

    @Test func theSpanNeverExceedsTheWindowOverALongRun() {
        // 0 answers last of every window-sized batch; the driver reads only while open.
        var harness = BridgeHarness()
        let window = 16
        let connection = harness.connect(window: window)
        var paused = false
        var answeredUpTo = 0
        for n in 0..<1_000 {
            if paused {
                // Answer the batch, its first last.
                let batch = answeredUpTo..<harness.session(connection).nextOrdinal
                for ordinal in batch.dropFirst() { harness.answer(connection, ordinal, .accepted) }
                harness.answer(connection, batch.lowerBound, .accepted)
                answeredUpTo = batch.upperBound
                #expect(harness.actions(connection) == ["resume"])
                paused = false
            }
            harness.receive(connection, [n])
            #expect(harness.session(connection).unsettledCount <= window)
            paused = harness.actions(connection).last == "pause"
        }
        #expect(harness.forwarded(by: connection) == Array(0..<1_000))
    }

    @Test func framesFedWhilePausedAreStillTaken() {
        // The contract asks the driver to stop decoding; one it had decoded anyway is
        // forwarded rather than lost.
        var harness = BridgeHarness()
        let connection = harness.connect(window: 1)
        harness.receive(connection, 0...1)
        #expect(harness.actions(connection) == ["forward(0)", "pause", "forward(1)"])
    }
}
