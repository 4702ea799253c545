import APNHTTP2
import APNTestSupport
import Testing

/// SETTINGS, GOAWAY, RST_STREAM and PING between a client and a server joined in memory.
@Suite struct StreamControlTests {
    @Test func theClientSeesTheServersStreamLimitAndKeepsToIt() throws {
        var server = HTTP2Session.Configuration()
        server.maxConcurrentStreams = 10
        let pair = try SessionPair(server: server)
        #expect(pair.client.remoteMaxConcurrentStreams == 100) // nghttp2's assumption before SETTINGS
        try pair.exchange()
        #expect(pair.clientEvents == [.remoteSettingsChanged(maxConcurrentStreams: 10)])
        #expect(pair.client.remoteMaxConcurrentStreams == 10)
        for index in 0..<25 {
            _ = try pair.client.submitRequest(headers: apnsHeaders(token: token(index)), body: [1, 2, 3])
        }
        var answered: Set<Int32> = []
        var mostOpen = 0
        while answered.count < 25 {
            try pair.exchange()
            mostOpen = max(mostOpen, pair.server.activeStreamCount)
            #expect(try pair.answerRequests(answered: &answered) > 0)
        }
        try pair.exchange()
        #expect(mostOpen == 10)
        #expect(pair.clientEvents.filter { if case .response = $0 { true } else { false } }.count == 25)
        #expect(pair.client.activeStreamCount == 0)
    }

    @Test func goawayRefusesTheStreamsAboveItsLastStreamID() throws {
        let pair = try SessionPair()
        let streamIDs = try (0..<10).map { try pair.client.submitRequest(headers: apnsHeaders(token: token($0)), body: [7]) }
        #expect(streamIDs == [1, 3, 5, 7, 9, 11, 13, 15, 17, 19])
        try pair.exchange()
        #expect(pair.server.activeStreamCount == 10)
        // The server processes streams 1 to 9 and refuses the rest.
        try pair.server.submitGoaway(errorCode: .noError, lastStreamID: 9, debugData: Array("draining".utf8))
        var answered: Set<Int32> = []
        try pair.exchange()
        for case .request(let streamID, _, _) in pair.serverEvents where streamID <= 9 {
            answered.insert(streamID)
            try pair.server.submitResponse(streamID: streamID, headers: [HTTP2Header(":status", "200")], body: [])
        }
        #expect(throws: HTTP2Error.self) {
            try pair.server.submitResponse(streamID: 11, headers: [HTTP2Header(":status", "200")], body: [])
        }
        try pair.exchange()
        #expect(pair.clientEvents.contains(.goaway(lastStreamID: 9, errorCode: .noError, debugData: Array("draining".utf8))))
        for streamID in streamIDs {
            let closed = pair.clientEvents.filter { if case .streamClosed(streamID, _) = $0 { true } else { false } }
            let responded = pair.clientEvents.contains { if case .response(streamID, _, _) = $0 { true } else { false } }
            if streamID <= 9 {
                #expect(closed == [.streamClosed(streamID: streamID, errorCode: .noError)])
                #expect(responded)
            } else {
                #expect(closed == [.streamClosed(streamID: streamID, errorCode: .refusedStream)])
                #expect(!responded)
            }
        }
        // No new request after a GOAWAY; once every stream has closed, both sessions are done.
        #expect {
            try pair.client.submitRequest(headers: apnsHeaders(token: token(0)), body: [])
        } throws: { ($0 as? HTTP2Error)?.kind == .sessionClosing }
        #expect(!pair.client.wantsRead && !pair.client.wantsWrite)
        #expect(!pair.server.wantsRead && !pair.server.wantsWrite)
    }

    @Test func requestsQueuedBehindTheStreamLimitAreRefusedByAGoaway() throws {
        var server = HTTP2Session.Configuration()
        server.maxConcurrentStreams = 2
        let pair = try SessionPair(server: server)
        try pair.exchange()
        let streamIDs = try (0..<5).map { try pair.client.submitRequest(headers: apnsHeaders(token: token($0)), body: []) }
        try pair.exchange()
        #expect(pair.server.activeStreamCount == 2)
        try pair.server.submitGoaway(errorCode: .noError)
        try pair.exchange()
        var answered: Set<Int32> = []
        try pair.answerRequests(answered: &answered)
        try pair.exchange()
        // Streams 1 and 3 were answered; 5, 7 and 9 never left the client, and each is
        // reported exactly once as refused.
        for streamID in streamIDs {
            let closed = pair.clientEvents.filter { if case .streamClosed(streamID, _) = $0 { true } else { false } }
            #expect(closed == [.streamClosed(streamID: streamID, errorCode: streamID <= 3 ? .noError : .refusedStream)])
        }
        #expect(pair.client.activeStreamCount == 0)
    }

    @Test func aServerRaisesItsStreamLimitLater() throws {
        var server = HTTP2Session.Configuration()
        server.maxConcurrentStreams = 1
        let pair = try SessionPair(server: server)
        try pair.exchange()
        _ = try (0..<3).map { try pair.client.submitRequest(headers: apnsHeaders(token: token($0)), body: []) }
        try pair.exchange()
        #expect(pair.server.activeStreamCount == 1, "the others wait in the client")
        try pair.server.advertiseMaxConcurrentStreams(10)
        try pair.exchange()
        #expect(pair.clientEvents.last == .remoteSettingsChanged(maxConcurrentStreams: 10))
        #expect(pair.server.activeStreamCount == 3)
    }

    @Test func aResetStreamIsClosedWithItsCodeOnBothEnds() throws {
        let pair = try SessionPair()
        let first = try pair.client.submitRequest(headers: apnsHeaders(token: token(1)), body: [1])
        let second = try pair.client.submitRequest(headers: apnsHeaders(token: token(2)), body: [2])
        try pair.exchange()
        // The client gives up on one, the server refuses the other.
        pair.client.resetStream(first, errorCode: .cancel)
        pair.server.resetStream(second, errorCode: HTTP2ErrorCode(rawValue: 0x1234))
        try pair.exchange()
        #expect(pair.serverEvents.contains(.streamClosed(streamID: first, errorCode: .cancel)))
        #expect(pair.clientEvents.contains(.streamClosed(streamID: second, errorCode: HTTP2ErrorCode(rawValue: 0x1234))))
        #expect(pair.clientEvents.contains(.streamClosed(streamID: first, errorCode: .cancel)))
        #expect(pair.client.activeStreamCount == 0 && pair.server.activeStreamCount == 0)
        #expect(HTTP2ErrorCode(rawValue: 0x1234).description == "unknown (0x1234)")
    }

    @Test func aRequestResetBeforeItWasSentIsClosedOnce() throws {
        let pair = try SessionPair()
        let streamID = try pair.client.submitRequest(headers: apnsHeaders(token: token(1)), body: [1])
        pair.client.resetStream(streamID, errorCode: .cancel)
        try pair.exchange()
        #expect(pair.clientEvents.filter { if case .streamClosed = $0 { true } else { false } }
            == [.streamClosed(streamID: streamID, errorCode: .cancel)])
        #expect(!pair.serverEvents.contains { if case .request = $0 { true } else { false } })
    }

    @Test func aPingIsAcknowledged() throws {
        let pair = try SessionPair()
        try pair.exchange()
        pair.client.submitPing()
        try pair.exchange()
        #expect(pair.clientEvents.last == .pingAcknowledged)
        pair.server.submitPing()
        try pair.exchange()
        #expect(pair.serverEvents.last == .pingAcknowledged)
    }

    @Test func terminateSendsGoawayAndEndsTheSession() throws {
        let pair = try SessionPair()
        _ = try pair.client.submitRequest(headers: apnsHeaders(token: token(1)), body: [1])
        try pair.exchange()
        pair.server.terminate(errorCode: .enhanceYourCalm)
        try pair.exchange()
        #expect(!pair.server.wantsRead && !pair.server.wantsWrite)
        #expect(pair.clientEvents.contains(.goaway(lastStreamID: 1, errorCode: .enhanceYourCalm, debugData: [])))
    }
}
