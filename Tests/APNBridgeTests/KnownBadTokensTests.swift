import APNBridge
import APNWire
import Testing

/// #40 item 4: the tokens the upstream called bad, per tenant, refused at once: the set's
/// bounds, and the session refusing such a notification without forwarding it (rule 10).
@Suite struct KnownBadTokensTests {
    static let bad = BridgeHarness.token(7)
    static let good = BridgeHarness.token(8)

    @Test func aBadTokenIsRefusedWithStatus8UntilItsRetentionPasses() {
        var tokens = KnownBadTokens(retention: .seconds(60), capacity: 10)
        #expect(tokens.refusal(for: Self.bad, now: .zero) == nil)
        tokens.insert(Self.bad, now: .seconds(5))
        #expect(tokens.refusal(for: Self.bad, now: .seconds(5)) == .invalidToken)
        #expect(tokens.refusal(for: Self.good, now: .seconds(5)) == nil)
        #expect(tokens.refusal(for: Self.bad, now: .seconds(64)) == .invalidToken)
        #expect(tokens.refusal(for: Self.bad, now: .seconds(65)) == nil, "60 s after the answer")
        tokens.expire(now: .seconds(65))
        #expect(tokens.count == 0)
    }

    @Test func answeredAgainItIsKeptFromTheNewerAnswer() {
        var tokens = KnownBadTokens(retention: .seconds(60), capacity: 10)
        tokens.insert(Self.bad, now: .zero)
        tokens.insert(Self.bad, now: .seconds(50))
        tokens.expire(now: .seconds(70))
        #expect(tokens.refusal(for: Self.bad, now: .seconds(70)) == .invalidToken)
        #expect(tokens.count == 1)
    }

    @Test func atItsCapacityTheOldestMakesRoom() {
        var tokens = KnownBadTokens(retention: .seconds(600), capacity: 2)
        for n in 1...3 { tokens.insert(BridgeHarness.token(n), now: .seconds(Int64(n))) }
        #expect(tokens.count == 2)
        #expect(tokens.refusal(for: BridgeHarness.token(1), now: .seconds(4)) == nil)
        #expect(tokens.refusal(for: BridgeHarness.token(3), now: .seconds(4)) == .invalidToken)
        var none = KnownBadTokens(capacity: 0)
        none.insert(Self.bad, now: .zero)
        #expect(none.count == 0)
    }

    @Test func theSessionRefusesItAtOnceWithoutForwarding() {
        var harness = BridgeHarness()
        let connection = harness.connect()
        harness.receive(connection, [0])
        harness.receiveKnownBad(connection, 7)
        #expect(harness.actions(connection) == ["forward(0)"], "7 is not forwarded")
        harness.answer(connection, 0, .accepted)
        #expect(harness.actions(connection) == ["error(8,107)"], "reported once 0 is answered, as any refusal")
        #expect(harness.forwarded(by: connection) == [0])
    }
}

/// Keys hashed over their bytes in one pass (``BytesKey``, ``ResendKey``): equal bytes are
/// one key, and bytes moved from one field to the next make another.
@Suite struct BytesKeyTests {
    @Test func equalBytesAreOneKeyAndShiftedFieldsAnother() {
        var keys: Set<ResendKey> = []
        keys.insert(ResendKey(token: [1, 2], payload: [3], expiry: 0, priority: 10))
        keys.insert(ResendKey(token: [1, 2], payload: [3], expiry: 0, priority: 10))
        keys.insert(ResendKey(token: [1], payload: [2, 3], expiry: 0, priority: 10))
        keys.insert(ResendKey(token: [1, 2], payload: [3], expiry: 1, priority: 10))
        keys.insert(ResendKey(token: [1, 2], payload: [3], expiry: 0, priority: 5))
        #expect(keys.count == 4)
        var hasher = Hasher()
        ResendKey(token: [1, 2], payload: [3], expiry: 0, priority: 10).hash(into: &hasher)
        var other = Hasher()
        ResendKey(token: [1], payload: [2, 3], expiry: 0, priority: 10).hash(into: &other)
        #expect(hasher.finalize() != other.finalize())
        let tokens: Set<BytesKey> = [BytesKey([1, 2, 3]), BytesKey([1, 2, 3]), BytesKey([1, 2]), BytesKey([])]
        #expect(tokens.count == 3 && tokens.contains(BytesKey([1, 2])) && !tokens.contains(BytesKey([2])))
    }
}
