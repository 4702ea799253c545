import APNHTTP2
import APNTestSupport
import Testing

/// `nextEvent()` moves events out one at a time, oldest first, and mixes with `takeEvents()`
/// and with new bytes arriving half-way through a drain.
@Suite struct EventDrainTests {
    /// Moves the server's output to the client (not taking the client's events).
    private func deliverServerOutput(_ pair: SessionPair) throws {
        var bytes: [UInt8] = []
        while pair.server.appendOutput(to: &bytes) > 0 {}
        try pair.feed(bytes, to: pair.client)
    }

    @Test func eventsComeOutOneByOneInOrderAcrossReceivesAndTakeEvents() throws {
        var server = HTTP2Session.Configuration()
        server.maxConcurrentStreams = 100
        let pair = try SessionPair(server: server)
        try pair.exchange()
        #expect(pair.client.nextEvent() == nil)
        var streams: [Int32] = []
        for index in 0..<4 {
            streams.append(try pair.client.submitRequest(headers: apnsHeaders(token: token(index)), body: [UInt8(index)]))
        }
        var bytes: [UInt8] = []
        while pair.client.appendOutput(to: &bytes) > 0 {}
        try pair.feed(bytes, to: pair.server)
        #expect(pair.server.takeEvents().count == 4)

        func answer(_ stream: Int32, _ status: String) throws {
            try pair.server.submitResponse(streamID: stream, headers: [HTTP2Header(":status", status)], body: [])
        }
        func response(_ stream: Int32, _ status: String) -> HTTP2Event {
            .response(streamID: stream, headers: [HTTP2Header(":status", status)], body: [])
        }
        try answer(streams[0], "200")
        try answer(streams[1], "410")
        try deliverServerOutput(pair)
        // One taken; then more arrive behind the two still waiting.
        #expect(pair.client.nextEvent() == response(streams[0], "200"))
        try answer(streams[2], "200")
        try deliverServerOutput(pair)
        #expect(pair.client.nextEvent() == .streamClosed(streamID: streams[0], errorCode: .noError))
        #expect(pair.client.nextEvent() == response(streams[1], "410"))
        // takeEvents after a partial drain: the rest, in order, none twice.
        #expect(pair.client.takeEvents() == [
            .streamClosed(streamID: streams[1], errorCode: .noError),
            response(streams[2], "200"), .streamClosed(streamID: streams[2], errorCode: .noError),
        ])
        #expect(pair.client.nextEvent() == nil)
        #expect(pair.client.takeEvents().isEmpty)
        // Drained to the end, the session goes on as before.
        try answer(streams[3], "503")
        try deliverServerOutput(pair)
        #expect(pair.client.nextEvent() == response(streams[3], "503"))
        #expect(pair.client.nextEvent() == .streamClosed(streamID: streams[3], errorCode: .noError))
        #expect(pair.client.nextEvent() == nil)
        #expect(pair.client.activeStreamCount == 0)
    }

    @Test func aClientThatTakesTheResponseAsTheEndHearsNoCloseAfterItButEveryOtherEnd() throws {
        var client = HTTP2Session.Configuration()
        client.reportsCloseAfterResponse = false
        var server = HTTP2Session.Configuration()
        server.maxConcurrentStreams = 100
        let pair = try SessionPair(client: client, server: server)
        try pair.exchange()
        let answered = try pair.client.submitRequest(headers: apnsHeaders(token: token(1)), body: [1])
        let reset = try pair.client.submitRequest(headers: apnsHeaders(token: token(2)), body: [2])
        try pair.exchange()
        try pair.server.submitResponse(streamID: answered, headers: [HTTP2Header(":status", "200")], body: [])
        pair.server.resetStream(reset, errorCode: .internalError)
        try pair.exchange()
        let ends = pair.clientEvents.filter {
            switch $0 {
            case .response, .streamClosed: true
            default: false
            }
        }
        #expect(ends == [
            .response(streamID: answered, headers: [HTTP2Header(":status", "200")], body: []),
            .streamClosed(streamID: reset, errorCode: .internalError),
        ])
        #expect(pair.client.activeStreamCount == 0)
        // The server still reports every stream's close, whatever the setting.
        #expect(pair.serverEvents.contains(.streamClosed(streamID: answered, errorCode: .noError)))
    }
}
