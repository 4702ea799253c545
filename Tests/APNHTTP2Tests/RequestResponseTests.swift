import APNHTTP2
import APNTestSupport
import Testing

/// One client and one server session joined in memory, exchanging requests and responses.
@Suite struct RequestResponseTests {
    static let payload = Array(#"{"aps":{"alert":"Hello"}}"#.utf8)

    @Test(arguments: Chunking.all)
    func oneRequestAndResponseCarryHeadersAndBodies(_ chunking: Chunking) throws {
        let pair = try SessionPair(chunking: chunking)
        let headers = apnsHeaders(token: token(0xBEEF)) + [HTTP2Header("apns-id", "123e4567-e89b-12d3-a456-426614174000")]
        let streamID = try pair.client.submitRequest(headers: headers, body: Self.payload)
        #expect(streamID == 1)
        try pair.exchange()
        // The server got our settings and the request, whole.
        #expect(pair.serverEvents == [
            .remoteSettingsChanged(maxConcurrentStreams: 100),
            .request(streamID: 1, headers: HTTP2HeaderList(headers), body: Self.payload),
        ])
        let reason = Array(#"{"reason":"BadDeviceToken"}"#.utf8)
        let responseHeaders = [HTTP2Header(":status", "400"), HTTP2Header("apns-id", "123e4567-e89b-12d3-a456-426614174000")]
        try pair.server.submitResponse(streamID: 1, headers: responseHeaders, body: reason)
        try pair.exchange()
        #expect(pair.clientEvents == [
            .remoteSettingsChanged(maxConcurrentStreams: 100),
            .response(streamID: 1, headers: HTTP2HeaderList(responseHeaders), body: reason),
            .streamClosed(streamID: 1, errorCode: .noError),
        ])
        #expect(pair.serverEvents.last == .streamClosed(streamID: 1, errorCode: .noError))
        #expect(pair.client.activeStreamCount == 0)
        #expect(pair.server.activeStreamCount == 0)
        // Neither has anything to say; both would read more.
        #expect(!pair.client.wantsWrite && !pair.server.wantsWrite)
        #expect(pair.client.wantsRead && pair.server.wantsRead)
    }

    @Test func emptyBodiesEndTheStreamWithTheHeaders() throws {
        let pair = try SessionPair()
        let streamID = try pair.client.submitRequest(headers: apnsHeaders(token: token(1)), body: [])
        try pair.exchange()
        #expect(pair.serverEvents.last == .request(streamID: streamID, headers: HTTP2HeaderList(apnsHeaders(token: token(1))), body: []))
        try pair.server.submitResponse(streamID: streamID, headers: [HTTP2Header(":status", "200")], body: [])
        try pair.exchange()
        #expect(pair.clientEvents.suffix(2) == [
            .response(streamID: streamID, headers: [HTTP2Header(":status", "200")], body: []),
            .streamClosed(streamID: streamID, errorCode: .noError),
        ])
    }

    @Test func thousandConcurrentRequestsAreAllAnsweredOnTheirOwnStreams() throws {
        var server = HTTP2Session.Configuration()
        server.maxConcurrentStreams = 1000
        let pair = try SessionPair(server: server)
        try pair.exchange() // the server's SETTINGS reach the client before it sends
        var tokenOfStream: [Int32: String] = [:]
        for index in 0..<1000 {
            let streamID = try pair.client.submitRequest(headers: apnsHeaders(token: token(index)), body: Self.payload)
            tokenOfStream[streamID] = token(index)
        }
        #expect(tokenOfStream.count == 1000)
        #expect(pair.client.activeStreamCount == 1000)
        try pair.exchange()
        // All 1,000 are open on the server at once, none answered yet.
        #expect(pair.server.activeStreamCount == 1000)
        var answered: Set<Int32> = []
        #expect(try pair.answerRequests(answered: &answered) == 1000)
        try pair.exchange()
        var responses = 0
        for case .response(let streamID, let headers, let body) in pair.clientEvents {
            // The server answers with the path it was asked for: the stream ids match.
            #expect(String(decoding: body, as: UTF8.self) == "/3/device/\(tokenOfStream[streamID]!)")
            #expect(headers == [HTTP2Header(":status", "200")])
            responses += 1
        }
        #expect(responses == 1000)
        let closed = pair.clientEvents.filter { if case .streamClosed(_, .noError) = $0 { true } else { false } }
        #expect(closed.count == 1000)
        #expect(pair.client.activeStreamCount == 0 && pair.server.activeStreamCount == 0)
    }

    @Test(arguments: [Chunking.whole, .byteByByte, .random(seed: 42)])
    func bodiesLargerThanTheFlowControlWindowArriveWhole(_ chunking: Chunking) throws {
        // 65,535 is HTTP/2's initial window for streams and for the connection alike.
        var configuration = HTTP2Session.Configuration()
        configuration.maxBodySize = 1 << 20
        configuration.connectionWindowSize = 65_535
        let pair = try SessionPair(client: configuration, server: configuration, chunking: chunking)
        var generator = SplitMix64(seed: 7)
        let request = (0..<200_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let response = (0..<150_001).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let streamID = try pair.client.submitRequest(headers: apnsHeaders(token: token(9)), body: request)
        try pair.exchange()
        #expect(pair.serverEvents.last == .request(streamID: streamID, headers: HTTP2HeaderList(apnsHeaders(token: token(9))), body: request))
        try pair.server.submitResponse(streamID: streamID, headers: [HTTP2Header(":status", "200")], body: response)
        try pair.exchange()
        #expect(pair.clientEvents.suffix(2) == [
            .response(streamID: streamID, headers: [HTTP2Header(":status", "200")], body: response),
            .streamClosed(streamID: streamID, errorCode: .noError),
        ])
    }

    @Test func aLargeBacklogComesOutInPiecesOfTheLimit() throws {
        var configuration = HTTP2Session.Configuration()
        configuration.maxBodySize = 1 << 20
        let pair = try SessionPair(client: configuration, server: configuration)
        try pair.exchange()
        for index in 0..<50 {
            _ = try pair.client.submitRequest(headers: apnsHeaders(token: token(index)), body: Array(repeating: 1, count: 1000))
        }
        var pieces: [Int] = []
        var buffer: [UInt8] = []
        while pair.client.wantsWrite {
            pieces.append(pair.client.appendOutput(to: &buffer, limit: 4096))
        }
        #expect(pieces.count > 10)
        #expect(pieces.allSatisfy { $0 < 4096 + 16_393 })
        #expect(buffer.count == pieces.reduce(0, +))
        try pair.feed(buffer, to: pair.server)
        #expect(pair.server.takeEvents().filter { if case .request = $0 { true } else { false } }.count == 50)
    }

    /// The field buffer keeps a field equal to the previous request's in place: a changed
    /// field of the same length is rewritten and checked, a refused one leaves nothing that
    /// counts as checked, and the server always reads exactly what was submitted.
    @Test func fieldsKeptInPlaceFromOneRequestToTheNextAreAlwaysTheOnesSubmitted() throws {
        let pair = try SessionPair()
        let first = apnsHeaders(token: token(1))
        let topic = try #require(first.firstIndex { $0.name == "apns-topic" })
        var sameLengthTopic = first
        sameLengthTopic[topic].value = String(sameLengthTopic[topic].value.reversed())
        var badSameLength = first
        badSameLength[topic].value = "a\r" + String(first[topic].value.dropFirst(2))
        var notIndexed = first
        notIndexed[topic].isIndexable = false
        var submitted: [[HTTP2Header]] = []
        for headers in [first, apnsHeaders(token: token(2)), sameLengthTopic, badSameLength, first, notIndexed, [first[0]] + first] {
            do {
                _ = try pair.client.submitRequest(headers: headers, body: [])
                submitted.append(headers)
            } catch {
                #expect(error.kind == .invalidHeader && headers == badSameLength, "\(error)")
            }
        }
        try pair.exchange()
        let received = pair.serverEvents.compactMap { event -> [HTTP2Header]? in
            if case .request(_, let headers, _) = event { Array(headers) } else { nil }
        }
        #expect(submitted.count == 6)
        #expect(received == Array(submitted.prefix(5)), "the repeated :method is refused by the server")
    }

    @Test(arguments: [Chunking.whole, .byteByByte])
    func aClientKeepsOnlyTheResponseFieldsItNamesAndEveryPseudoHeader(_ chunking: Chunking) throws {
        var client = HTTP2Session.Configuration()
        client.keptResponseFields = ["apns-id", ""]
        let pair = try SessionPair(client: client, chunking: chunking)
        let streamID = try pair.client.submitRequest(headers: apnsHeaders(token: token(1)), body: [])
        try pair.exchange()
        try pair.server.submitResponse(
            streamID: streamID,
            headers: [
                HTTP2Header(":status", "200"), HTTP2Header("server", "nghttpd"), HTTP2Header("apns-id", "abc"),
                HTTP2Header("date", "Wed, 02 Dec 2026 15:00:00 GMT"),
            ],
            body: [])
        try pair.exchange()
        #expect(pair.clientEvents.contains(
            .response(streamID: streamID, headers: [HTTP2Header(":status", "200"), HTTP2Header("apns-id", "abc")], body: [])))
        // A server session keeps every field of a request, whatever the setting says.
        var server = HTTP2Session.Configuration()
        server.keptResponseFields = []
        let second = try SessionPair(server: server)
        let id = try second.client.submitRequest(headers: apnsHeaders(token: token(2)), body: [])
        try second.exchange()
        #expect(second.serverEvents.last == .request(streamID: id, headers: HTTP2HeaderList(apnsHeaders(token: token(2))), body: []))
    }
}
