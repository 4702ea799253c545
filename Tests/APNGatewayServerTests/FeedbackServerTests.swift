import APNGatewayServer
import APNTestSupport
import APNTestTraits
import Testing

/// The feedback side of the core: it serves what the source gives and settles each visit.
@Suite(.threadPerTest) struct FeedbackServerTests {
    @Test func servesTheSourcesBytesAndSettlesTheVisitAsServed() throws {
        let seen = try Seen()
        let bytes = hex("5f5e1000 0002 abcd")
        let harness = try ServerHarness(policy: AcceptingPolicy(seen: seen), source: FixedFeedback(seen: seen, bytes: bytes))
        let transcript = try harness.connect(feedback: true).readToEnd()
        #expect(transcript.bytes == bytes)
        #expect(transcript.end == .closed(clean: true))
        #expect(seen.wait { $0.settled == [true] })
    }

    @Test func closesAtOnceWhenTheSourceHasNothingForThePeer() throws {
        let seen = try Seen()
        let harness = try ServerHarness(policy: AcceptingPolicy(seen: seen), source: FixedFeedback(seen: seen, bytes: nil))
        let transcript = try harness.connect(feedback: true).readToEnd()
        #expect(transcript.bytes.isEmpty)
        #expect(transcript.end != .closed(clean: true))
        #expect(seen.current.settled.isEmpty)
    }
}
