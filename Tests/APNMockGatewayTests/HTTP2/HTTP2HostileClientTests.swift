import APNHTTP2
import APNTLS
import APNMockGateway
import APNTestSupport
import APNTestTraits
import Testing

/// Clients that break the protocol or its limits: the gateway neither crashes nor hangs nor
/// grows, and serves the next client.
@Suite(.threadPerTest) struct HTTP2HostileClientTests {
    /// The client connection preface, then an empty SETTINGS frame.
    static let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8) + hex("000000 04 00 00000000")
    /// A PING frame.
    static let ping = hex("000008 06 00 00000000 0102030405060708")

    @Test func garbageInsteadOfThePrefaceEndsTheConnection() throws {
        let harness = try HTTP2Harness()
        let connection = try TLSConnection.connect(host: "127.0.0.1", port: harness.gateway.port, context: harness.context())
        try connection.handshake(deadline: .now + .seconds(5))
        let raw = TestClient(connection)
        try raw.send(Array("GET / HTTP/1.1\r\nHost: api.push.apple.com\r\n\r\n".utf8))
        let transcript = try raw.readToEnd()
        #expect(transcript.end != .timedOut)
        #expect(harness.gateway.waitForSummary(timeout: .seconds(5)) { $0.protocolErrors == 1 })
        try expectServesAnotherClient(harness)
    }

    @Test func streamsBeyondTheLimitAreRefusedAndTheRestAnswered() throws {
        let harness = try HTTP2Harness { $0.maxConcurrentStreams = 10 }
        let client = try harness.certificateClient()
        // Sent before the gateway's SETTINGS arrive, when nghttp2 allows 100.
        let streams = try (0..<100).map { try client.submit(headers: apnsRequest(token: deviceToken($0)), body: h2Payload($0)) }
        #expect(try client.waitForStreams(streams, timeout: .seconds(30)))
        let answered = streams.filter { client.responses[$0]?.status == 200 }
        let refused = streams.filter { client.closedStreams[$0] == .refusedStream }
        #expect(answered.count + refused.count == 100)
        #expect(answered.count >= 10 && refused.count > 0)
        #expect(harness.gateway.recordCount == answered.count)
        #expect(client.serverMaxConcurrentStreams == 10)
        #expect(try client.exchange(headers: apnsRequest(), body: h2Payload(1))?.status == 200, "the connection goes on")
    }

    @Test func aHeaderListAboveTheLimitResetsItsStreamOnly() throws {
        let harness = try HTTP2Harness()
        let client = try harness.certificateClient()
        let huge = apnsRequest(extra: [HTTP2Header("x-padding", String(repeating: "p", count: 20_000))])
        let stream = try client.submit(headers: huge, body: h2Payload(1))
        #expect(try client.waitForStreams([stream]))
        #expect(client.closedStreams[stream] == .enhanceYourCalm)
        #expect(client.responses[stream] == nil)
        #expect(try client.exchange(headers: apnsRequest(), body: h2Payload(2))?.status == 200)
        #expect(harness.gateway.summary.rejectedStreams == 1)
    }

    @Test func aMegabyteHeaderDoesNotHurtTheGateway() throws {
        let harness = try HTTP2Harness()
        let client = try harness.certificateClient()
        let huge = apnsRequest(extra: [HTTP2Header("x-padding", String(repeating: "p", count: 1 << 20))])
        let stream = try client.submit(headers: huge, body: h2Payload(1))
        #expect(try client.run(timeout: .seconds(10)) { client.closedStreams[stream] != nil || client.end != nil })
        #expect(client.responses[stream] == nil)
        try expectServesAnotherClient(harness)
    }

    @Test func aBodyAboveTheSessionLimitResetsItsStream() throws {
        let harness = try HTTP2Harness()
        let client = try harness.certificateClient()
        let stream = try client.submit(headers: apnsRequest(), body: jsonPayload(size: 100_000))
        #expect(try client.waitForStreams([stream]))
        #expect(client.closedStreams[stream] == .enhanceYourCalm)
        #expect(try client.exchange(headers: apnsRequest(), body: h2Payload(2))?.status == 200)
        #expect(harness.gateway.recordCount == 1)
    }

    @Test func aClientThatNeverReadsIsHeldBackNotBuffered() throws {
        let harness = try HTTP2Harness()
        let connection = try TLSConnection.connect(host: "127.0.0.1", port: harness.gateway.port, context: harness.context())
        try connection.handshake(deadline: .now + .seconds(5))
        let raw = TestClient(connection)
        try raw.send(Self.preface)
        // PINGs the gateway must answer, and a client that reads none of the answers: the
        // gateway stops reading once its answers back up, so the client's writes block
        // (or nghttp2 calls it a flood and ends the connection) long before 64 MiB.
        let pings = Array([[UInt8]](repeating: Self.ping, count: 4096).joined())
        var sent = 0
        var blocked = false
        while sent < 64 << 20 && !blocked {
            do {
                let written = try raw.writeWithoutBlocking(pings, patience: .milliseconds(500))
                sent += written
                blocked = written < pings.count
            } catch {
                blocked = true  // the gateway ended the connection
            }
        }
        #expect(blocked, "held back after \(sent) bytes")
        try expectServesAnotherClient(harness)
        // A stop that waited on the client to read would never end: stopping cleanly within
        // the bound is the proof (no assertion on how long it took).
        #expect(harness.gateway.stop(timeout: .seconds(60)).stoppedCleanly)
    }

    /// A fresh client still gets its notification accepted.
    private func expectServesAnotherClient(_ harness: HTTP2Harness) throws {
        let client = try harness.certificateClient()
        #expect(try client.exchange(headers: apnsRequest(), body: h2Payload(99))?.status == 200)
    }
}
