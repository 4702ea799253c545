import APNWire
import APNTestSupport
import Testing

@Suite struct FeedbackDecoderTests {
    func decode(_ bytes: [UInt8], _ chunking: Chunking, maxTokenLength: Int = 100) throws -> (tuples: [FeedbackTuple], leftover: Int) {
        var decoder = FeedbackDecoder(maxTokenLength: maxTokenLength)
        var tuples: [FeedbackTuple] = []
        for chunk in chunking.split(bytes) {
            decoder.feed(chunk)
            while let tuple = try decoder.next() { tuples.append(tuple) }
        }
        return (tuples, decoder.finish())
    }

    @Test(arguments: Chunking.all)
    func decodesTheVector(chunking: Chunking) throws {
        let result = try decode(Vectors.feedbackTuple, chunking)
        #expect(result.tuples == [FeedbackTuple(time: Vectors.expiry, token: Vectors.token)])
        #expect(result.leftover == 0)
    }

    @Test(arguments: Chunking.all)
    func decodesVariableTokenLengthsByTheLengthField(chunking: Chunking) throws {
        let bytes = hex("00000001 0001 aa  00000002 0003 bbccdd  ffffffff 0064") + [UInt8](repeating: 0xEE, count: 100)
        let result = try decode(bytes, chunking)
        #expect(result.tuples == [
            FeedbackTuple(time: 1, token: [0xAA]),
            FeedbackTuple(time: 2, token: [0xBB, 0xCC, 0xDD]),
            FeedbackTuple(time: 0xFFFF_FFFF, token: [UInt8](repeating: 0xEE, count: 100)),
        ])
    }

    @Test(arguments: Chunking.all)
    func discardsAPartialTupleAtClose(chunking: Chunking) throws {
        let result = try decode(Vectors.feedbackTuple + hex("5e0be100 0020 0001"), chunking)
        #expect(result.tuples.count == 1)
        #expect(result.leftover == 8)
    }

    @Test func refusesATokenLongerThanTheLimitBeforeBufferingIt() {
        var decoder = FeedbackDecoder(maxTokenLength: 32)
        decoder.feed(hex("00000001 0021"))
        let error = #expect(throws: WireError.self) { try decoder.next() }
        #expect(error?.code == .tokenLength)
        #expect(error?.value == 33)
        #expect(error?.limit == 32)
        #expect(decoder.bufferedByteCount == 6)
    }

    @Test func refusesAnEmptyToken() {
        var decoder = FeedbackDecoder()
        decoder.feed(hex("00000001 0000") + Vectors.feedbackTuple)
        #expect(throws: WireError.self) { try decoder.next() }
        #expect(throws: WireError.self) { try decoder.next() }
    }
}
