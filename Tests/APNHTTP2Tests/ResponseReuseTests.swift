import APNHTTP2
import APNTestSupport
import Testing

/// A client keeps a response's fields as bytes in room reserved after the previous
/// response's size (most of Apple's answers are alike): whatever the sizes, the response
/// reported is the one sent, field for field — the same, a longer one, a shorter one, one
/// that differs early or late, and the same again after a differing one.
@Suite struct ResponseReuseTests {
    static let id = "123e4567-e89b-12d3-a456-426614174000"
    static let responses: [[HTTP2Header]] = [
        [HTTP2Header(":status", "200"), HTTP2Header("apns-id", id)],
        [HTTP2Header(":status", "200"), HTTP2Header("apns-id", id)],
        [HTTP2Header(":status", "200"), HTTP2Header("apns-id", id), HTTP2Header("apns-unique-id", "u1")],
        [HTTP2Header(":status", "200")],
        [HTTP2Header(":status", "410"), HTTP2Header("apns-id", id)],
        [HTTP2Header(":status", "410"), HTTP2Header("apns-id", "0e4567aa-e89b-12d3-a456-426614174000")],
        [HTTP2Header(":status", "410"), HTTP2Header("apns-id", "0e4567aa-e89b-12d3-a456-426614174000")],
        [HTTP2Header(":status", "200"), HTTP2Header("apns-id", id)],
    ]

    @Test(arguments: Chunking.all)
    func everyResponseIsReportedAsSentWhateverItShares(_ chunking: Chunking) throws {
        let pair = try SessionPair(chunking: chunking)
        try answerEach(on: pair, round: 0, droppingEvents: false)
    }

    /// The storage of a response's fields is reused for a later one once the reader let the
    /// event go (#45), and a reused storage holds nothing of the response it held before:
    /// each response read back, with the events dropped after each (the recycling case),
    /// is the one sent.
    @Test(arguments: Chunking.all)
    func droppedResponsesLendTheirStorageAndKeepNothingOfIt(_ chunking: Chunking) throws {
        let pair = try SessionPair(chunking: chunking)
        for round in 0..<3 { try answerEach(on: pair, round: round, droppingEvents: true) }
    }

    /// Sends a request for each of ``responses``, answers it with that response, and
    /// expects the client to report it as sent; `droppingEvents` lets each go after.
    private func answerEach(on pair: SessionPair, round: Int, droppingEvents: Bool) throws {
        for (index, headers) in Self.responses.enumerated() {
            let streamID = try pair.client.submitRequest(headers: apnsHeaders(token: token(index)), body: [])
            try pair.exchange()
            try pair.server.submitResponse(streamID: streamID, headers: headers, body: [])
            try pair.exchange()
            #expect(pair.clientEvents.suffix(2) == [
                .response(streamID: streamID, headers: HTTP2HeaderList(headers), body: []),
                .streamClosed(streamID: streamID, errorCode: .noError),
            ], "round \(round), response \(index)")
            if droppingEvents {
                pair.clientEvents.removeAll()
                pair.serverEvents.removeAll()
            }
        }
    }
}
