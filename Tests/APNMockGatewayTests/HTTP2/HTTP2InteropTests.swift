import APNHTTP2
import APNTLS
import APNMockGateway
import APNTestSupport
import APNTestTraits
import Testing

/// The HTTP/2 gateway as Apple's behaves toward clients other than ours (issue #26, rows 1,
/// 2 and 8), judged from the frames on the wire.
@Suite(.threadPerTest) struct HTTP2InteropTests {
    /// Row 1: aioapns 4.0 and Pushy offer no ALPN, and Apple serves them; the gateway
    /// closed such a connection right after the handshake, so they delivered nothing.
    @Test func aClientOfferingNoALPNIsServedHTTP2WithPriorKnowledge() throws {
        let harness = try HTTP2Harness()
        let client = try HTTP2TestClient.connect(port: harness.gateway.port, context: harness.context(protocols: []))
        #expect(client.connection.applicationProtocol == nil, "no protocol agreed")
        let streams = try (1...3).map { try client.submit(headers: apnsRequest(token: deviceToken($0)), body: h2Payload($0)) }
        #expect(try client.waitForStreams(streams))
        #expect(streams.map { client.responses[$0]?.status } == [200, 200, 200])
        #expect(harness.gateway.records.map(\.payload) == (1...3).map(h2Payload))
        #expect(harness.gateway.summary.alpnRefusals == 0)
    }

    /// Row 1's other half: ALPN offered without `h2` is still refused, and counted as such.
    @Test func aClientOfferingALPNWithoutH2IsRefusedAndCountedAsAnALPNRefusal() throws {
        let harness = try HTTP2Harness()
        let connection = try TLSConnection.connect(
            host: "127.0.0.1", port: harness.gateway.port, context: harness.context(protocols: ["http/1.1"]))
        // TLS 1.3: the client may finish its side first and learn of the refusal on its first read.
        if (try? connection.handshake(deadline: .now + .seconds(5))) != nil {
            #expect(try TestClient(connection).readToEnd().end != .timedOut, "closed at once")
        }
        #expect(harness.gateway.waitForSummary(timeout: .seconds(10)) { $0.alpnRefusals == 1 })
        let summary = harness.gateway.summary
        #expect(summary.handshakeFailures == 0 && summary.refusedConnections == 1 && summary.connections == 0)
    }

    /// Row 2: an idle connection got no GOAWAY, only a close; Apple sends
    /// `{"reason":"IdleTimeout"}` first.
    @Test func anIdleConnectionGetsAGoawayWithIdleTimeoutThenTheClose() throws {
        let harness = try HTTP2Harness { $0.idleTimeout = .milliseconds(300) }
        let client = try harness.certificateClient()
        client.tapsFrames = true
        #expect(try client.exchange(headers: apnsRequest(), body: h2Payload(1))?.status == 200)
        #expect(try client.waitForEnd(timeout: .seconds(30)) == .closed(clean: true))
        let goaways = client.tap.frames.filter { $0.type == HTTP2FrameTap.goaway }
        #expect(goaways.count == 1)
        // Stream 0; last-stream-id 1 (the one processed), NO_ERROR, then Apple's JSON.
        #expect(goaways.first?.streamID == 0)
        #expect(goaways.first?.payload == [0, 0, 0, 1, 0, 0, 0, 0] + Array(#"{"reason":"IdleTimeout"}"#.utf8))
        #expect(client.tap.frames.last?.type == HTTP2FrameTap.goaway, "nothing after it")
        let summary = harness.gateway.summary
        #expect(summary.goaways == 1 && summary.idleTimeouts == 1)
    }

    /// Row 2's other half, unchanged: a peer that never sends the preface gets no GOAWAY,
    /// only the server's SETTINGS and the drop.
    @Test func aPeerThatNeverSendsThePrefaceIsDroppedWithoutAGoaway() throws {
        let harness = try HTTP2Harness { $0.idleTimeout = .milliseconds(200) }
        let connection = try TLSConnection.connect(host: "127.0.0.1", port: harness.gateway.port, context: harness.context())
        try connection.handshake(deadline: .now + .seconds(5))
        let transcript = try TestClient(connection).readToEnd(timeout: .seconds(30))
        #expect(transcript.end != .timedOut)
        var tap = HTTP2FrameTap()
        tap.append(transcript.bytes)
        #expect(tap.frames.first?.type == 4, "its SETTINGS")
        #expect(!tap.frames.contains { $0.type == HTTP2FrameTap.goaway })
        #expect(harness.gateway.waitForSummary(timeout: .seconds(10)) { $0.idleTimeouts == 1 })
        #expect(harness.gateway.summary.goaways == 0)
    }

    /// Row 8: the GOAWAY went out before the answers to the streams it covers, and aioapns
    /// and Python's h2 then sent those requests again (17 and 1,122 duplicates). Every
    /// answer it covers — headers and body, a refusal's JSON included — now precedes it,
    /// whether answers go out at once or are held back.
    @Test(arguments: [Duration.zero, .milliseconds(50)])
    func everyAnswerAGoawayCoversPrecedesIt(responseDelay: Duration) throws {
        var faults = HTTP2MockGateway.Faults()
        faults.goawayAfterRequests = 3
        faults.responseDelay = responseDelay
        let harness = try HTTP2Harness(faults: faults)
        let client = try harness.certificateClient()
        client.tapsFrames = true
        // The second is refused (400 BadPriority, a body in DATA frames): both shapes of answer.
        let streams = try (1...5).map { n in
            try client.submit(headers: apnsRequest(token: deviceToken(n), priority: n == 2 ? "7" : "10"), body: h2Payload(n))
        }
        #expect(try client.waitForEnd(timeout: .seconds(30)) != nil)
        let frames = client.tap.frames
        let goawayAt = try #require(frames.firstIndex { $0.type == HTTP2FrameTap.goaway })
        #expect(Array(frames[goawayAt].payload.prefix(8)) == [0, 0, 0, UInt8(streams[2]), 0, 0, 0, 0])
        for stream in streams.prefix(3) {
            let headers = frames.firstIndex { $0.streamID == stream && $0.type == HTTP2FrameTap.headers }
            let end = frames.firstIndex { $0.streamID == stream && $0.endsStream }
            #expect(headers.map { $0 < goawayAt } == true, "stream \(stream)'s HEADERS before the GOAWAY")
            #expect(end.map { $0 < goawayAt } == true, "stream \(stream) answered in full before the GOAWAY")
        }
        #expect(streams.prefix(3).map { client.responses[$0]?.status } == [200, 400, 200])
        #expect(streams.suffix(2).map { client.closedStreams[$0] } == [.refusedStream, .refusedStream])
        #expect(frames.filter { $0.streamID > streams[2] && $0.type == HTTP2FrameTap.headers }.isEmpty)
        #expect(harness.gateway.summary.goaways == 1)
    }
}
