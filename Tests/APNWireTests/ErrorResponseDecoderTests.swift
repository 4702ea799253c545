import APNWire
import APNTestSupport
import Testing

@Suite struct ErrorResponseDecoderTests {
    func decode(_ bytes: [UInt8], _ chunking: Chunking) throws -> [ErrorResponse] {
        var decoder = ErrorResponseDecoder()
        var responses: [ErrorResponse] = []
        for chunk in chunking.split(bytes) {
            decoder.feed(chunk)
            while let response = try decoder.next() { responses.append(response) }
        }
        #expect(decoder.bufferedByteCount == bytes.count - responses.count * 6)
        return responses
    }

    @Test(arguments: Chunking.all)
    func decodesTheVector(chunking: Chunking) throws {
        #expect(try decode(Vectors.errorResponse, chunking) == [ErrorResponse(status: .invalidToken, identifier: 42)])
    }

    @Test(arguments: Chunking.all)
    func reassemblesResponsesSplitAndGlued(chunking: Chunking) throws {
        let bytes = hex("08 0a 00000007  08 80 ffffffff  08 00 00000000  08 08 0000")
        #expect(try decode(bytes, chunking) == [
            ErrorResponse(status: .shutdown, identifier: 7),
            ErrorResponse(status: .protocolError, identifier: 0xFFFF_FFFF),
            ErrorResponse(status: .noErrorsEncountered, identifier: 0),
        ])
    }

    @Test func keepsUnknownStatusBytes() throws {
        let responses = try decode(hex("08 09 00000001 08 fe 00000002"), .whole)
        #expect(responses.map(\.status.rawValue) == [9, 254])
        #expect(responses.allSatisfy { !$0.status.isKnown })
    }

    @Test func refusesAnythingButCommandEightAndStaysFailed() {
        var decoder = ErrorResponseDecoder()
        decoder.feed(hex("01 08 00000001"))
        #expect(throws: WireError.self) { try decoder.next() }
        decoder.feed(Vectors.errorResponse)
        do {
            _ = try decoder.next()
            Issue.record("a failed decoder must keep failing")
        } catch {
            #expect(error.code == .unexpectedCommand)
            #expect(error.value == 1)
            #expect(error.description == "expected an error response (command 8), got command 1")
        }
    }
}
