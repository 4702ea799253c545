import APNHTTP2
import APNTestSupport
import Testing

/// Local misuse throws a local error; a hostile or broken peer throws a remote one, or
/// gets its stream reset, and never crashes the session or grows it without bound.
@Suite struct FailureTests {
    /// The server's output after `bytes`, as frames (its SETTINGS first).
    static func serverFrames(after bytes: [UInt8], server: HTTP2Session) -> [Frame] {
        var output: [UInt8] = []
        while server.appendOutput(to: &output) > 0 {}
        return Frame.parse(output)
    }

    @Test func garbageInsteadOfTheClientPrefaceThrows() throws {
        let server = try HTTP2Session(role: .server)
        let garbage = Array("GET / HTTP/1.1\r\nHost: example.com\r\n\r\n".utf8)
        let error = #expect(throws: HTTP2Error.self) {
            try server.receive(garbage)
        }
        #expect(error?.kind == .badPreface)
        #expect(error?.isRemote == true)
        // It says so with a GOAWAY after its SETTINGS, then is done.
        let frames = Self.serverFrames(after: garbage, server: server)
        #expect(frames.map(\.type) == [4, Frame.goawayType])
        #expect(frames.last?.goawayErrorCode == HTTP2ErrorCode.protocolError.rawValue)
        #expect(!server.wantsRead && !server.wantsWrite)
        // Later bytes throw the same error.
        #expect(throws: try #require(error)) {
            try server.receive(clientPreface)
        }
    }

    @Test func aFrameLargerThanTheMaximumFrameSizeThrows() throws {
        let pair = try SessionPair()
        try pair.exchange()
        // A DATA frame header announcing 16,385 bytes: one over SETTINGS_MAX_FRAME_SIZE's default.
        let oversized = hex("004001 00 00 00000001")
        let error = #expect(throws: HTTP2Error.self) {
            try pair.feed(oversized, to: pair.server)
        }
        #expect(error?.kind == .protocolViolation)
        #expect(error?.isRemote == true)
        let frames = Self.serverFrames(after: oversized, server: pair.server)
        #expect(frames.last?.type == Frame.goawayType)
        #expect(frames.last?.goawayErrorCode == HTTP2ErrorCode.frameSizeError.rawValue)
        #expect(!pair.server.wantsRead && !pair.server.wantsWrite)
    }

    @Test func aPingFloodThrows() throws {
        let pair = try SessionPair()
        try pair.exchange()
        // 1,100 PINGs, and the client never reads the answers: nghttp2 stops at 1,000
        // queued acknowledgements.
        let ping = hex("000008 06 00 00000000 0102030405060708")
        let error = #expect(throws: HTTP2Error.self) {
            try pair.feed(Array((0..<1100).map { _ in ping }.joined()), to: pair.server)
        }
        #expect(error?.kind == .flood)
        #expect(error?.isRemote == true)
        #expect(Self.serverFrames(after: [], server: pair.server).last?.goawayErrorCode == HTTP2ErrorCode.enhanceYourCalm.rawValue)
    }

    @Test func aBodyOverTheLimitResetsOnlyItsStream() throws {
        var server = HTTP2Session.Configuration()
        server.maxBodySize = 1000
        let pair = try SessionPair(server: server)
        let big = try pair.client.submitRequest(headers: apnsHeaders(token: token(1)), body: Array(repeating: 0x41, count: 5000))
        try pair.exchange()
        #expect(pair.serverEvents.count == 3)
        guard case .streamRejected(big, let reason) = pair.serverEvents[1] else {
            Issue.record("expected a rejection, got \(pair.serverEvents)")
            return
        }
        #expect(reason.kind == .bodyTooLarge && reason.isRemote && reason.streamID == big)
        #expect(pair.serverEvents[2] == .streamClosed(streamID: big, errorCode: .enhanceYourCalm))
        #expect(pair.clientEvents.last == .streamClosed(streamID: big, errorCode: .enhanceYourCalm))
        // The session goes on: a request within the limit is answered.
        let small = try pair.client.submitRequest(headers: apnsHeaders(token: token(2)), body: Array(repeating: 0x41, count: 1000))
        try pair.exchange()
        var answered: Set<Int32> = []
        #expect(try pair.answerRequests(answered: &answered) == 1)
        try pair.exchange()
        #expect(pair.clientEvents.last == .streamClosed(streamID: small, errorCode: .noError))
        #expect(pair.server.activeStreamCount == 0)
    }

    @Test func aHeaderListOverTheLimitResetsOnlyItsStream() throws {
        var server = HTTP2Session.Configuration()
        server.maxHeaderListSize = 1024
        let pair = try SessionPair(server: server)
        try pair.exchange()
        let headers = apnsHeaders(token: token(1)) + [HTTP2Header("authorization", "bearer " + String(repeating: "x", count: 1000))]
        let streamID = try pair.client.submitRequest(headers: headers, body: [1])
        try pair.exchange()
        #expect(pair.serverEvents.contains { if case .streamRejected(streamID, let reason) = $0 { reason.kind == .headerListTooLarge } else { false } })
        #expect(!pair.serverEvents.contains { if case .request = $0 { true } else { false } })
        #expect(pair.clientEvents.last == .streamClosed(streamID: streamID, errorCode: .enhanceYourCalm))
        _ = try pair.client.submitRequest(headers: apnsHeaders(token: token(2)), body: [1])
        try pair.exchange()
        #expect(pair.serverEvents.contains { if case .request = $0 { true } else { false } })
    }

    @Test func localMisuseThrowsLocalErrors() throws {
        let client = try HTTP2Session(role: .client)
        let server = try HTTP2Session(role: .server)
        let misuses: [(HTTP2Error.Kind, () throws(HTTP2Error) -> Void)] = [
            (.wrongRole, { () throws(HTTP2Error) in try client.submitResponse(streamID: 1, headers: [], body: []) }),
            (.wrongRole, { () throws(HTTP2Error) in _ = try server.submitRequest(headers: apnsHeaders(token: token(1)), body: []) }),
            (.streamClosed, { () throws(HTTP2Error) in try server.submitResponse(streamID: 1, headers: [HTTP2Header(":status", "200")], body: []) }),
            (.invalidHeader, { () throws(HTTP2Error) in _ = try client.submitRequest(headers: [HTTP2Header("Apns-Topic", "x")], body: []) }),
            (.invalidHeader, { () throws(HTTP2Error) in _ = try client.submitRequest(headers: [HTTP2Header("apns-topic", "a\r\nb")], body: []) }),
            (.invalidArgument, { () throws(HTTP2Error) in try client.submitGoaway(errorCode: .noError, lastStreamID: 1) }),
        ]
        for (kind, call) in misuses {
            let error = #expect(throws: HTTP2Error.self) { try call() }
            #expect(error?.kind == kind)
            #expect(error?.isRemote == false)
        }
        #expect(client.activeStreamCount == 0)
    }

    @Test(arguments: 1...50 as ClosedRange<UInt64>)
    func randomBytesAfterThePrefaceNeverCrash(_ seed: UInt64) throws {
        let pair = try SessionPair()
        try pair.exchange()
        _ = try pair.client.submitRequest(headers: apnsHeaders(token: token(1)), body: [1])
        try pair.exchange()
        var generator = SplitMix64(seed: seed)
        // Random frames: plausible headers (small lengths, every type) over random payloads.
        var bytes: [UInt8] = []
        for _ in 0..<64 {
            let length = Int.random(in: 0...40, using: &generator)
            bytes += [0, 0, UInt8(length), UInt8.random(in: 0...10, using: &generator), UInt8.random(in: 0...255, using: &generator),
                      0, 0, 0, UInt8.random(in: 0...9, using: &generator)]
            bytes += (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
        }
        for session in [pair.server, pair.client] {
            do {
                try pair.feed(bytes, to: session)
            } catch {
                #expect(error.isRemote, "seed \(seed)")
            }
            var output: [UInt8] = []
            while session.appendOutput(to: &output) > 0 {}
            _ = session.takeEvents()
            // The frames name streams 0 to 9 only: no more can be open, whatever they did.
            #expect(session.activeStreamCount <= 10, "seed \(seed)")
        }
    }
}
