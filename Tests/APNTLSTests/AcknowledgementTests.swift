import APNTestSupport
import APNTestTraits
import APNTLS
import Testing

/// What the transport can tell about delivery: how many bytes OpenSSL handed to the socket,
/// and how many of those the peer's TCP has not acknowledged (a connection's driver uses
/// them so that "written" is never mistaken for "received").
@Suite(.threadPerTest) struct AcknowledgementTests {
    private func connectedPair() throws -> LoopbackPair {
        let fixture = try Fixture()
        // No tickets: a ticket left unread would turn the server's close into a reset.
        let pair = try LoopbackPair(server: fixture.serverContext(sessionTickets: false), client: fixture.clientContext())
        let outcome = pair.handshake()
        try #require(outcome.client.isDone && outcome.server.isDone)
        return pair
    }

    @Test func bytesSentCountsCiphertextIncludingTheHandshake() throws {
        let pair = try connectedPair()
        let afterHandshake = pair.client.bytesSentToSocket
        #expect(afterHandshake > 0, "the client's handshake messages went through the socket")
        try pair.client.writeAll(patternBytes(10_000, seed: 1), deadline: .now + .seconds(10))
        // Ciphertext: at least the plaintext plus a record header and tag per record.
        #expect(pair.client.bytesSentToSocket >= afterHandshake + 10_000 + 22)
    }

    @Test func aPeerThatStopsReadingLeavesBytesUnacknowledged() throws {
        let pair = try connectedPair()
        let chunk = patternBytes(65_536, seed: 2)
        var blocked = false
        var written = 0
        // The server never reads: its receive buffer fills, then its TCP window closes and
        // what the client writes stays in the client's send queue, unacknowledged.
        while !blocked, written < 256 << 20 {
            switch chunk.withUnsafeBytes({ pair.client.write($0) }) {
            case .done(let count): written += count
            case .wantWrite: blocked = true
            case let other: Issue.record("unexpected \(other)"); return
            }
        }
        #expect(blocked)
        let unacknowledged = try #require(pair.client.unacknowledgedByteCount())
        #expect(unacknowledged > 0)
        #expect(UInt64(unacknowledged) <= pair.client.bytesSentToSocket)
    }

    @Test func everythingThePeerReadIsAcknowledgedByTheTimeItsCloseArrives() throws {
        let pair = try connectedPair()
        let payload = patternBytes(300_000, seed: 3)
        try pair.client.writeAll(payload, deadline: .now + .seconds(10))
        let (received, _) = readAll(pair.server, count: payload.count, deadline: .now + .seconds(10))
        #expect(received == payload)
        _ = pair.server.shutdown()
        pair.server.close()
        // The server's FIN acknowledges all it received: once the client sees the end,
        // nothing it sent is left unacknowledged.
        let (_, end) = readAll(pair.client, count: 1, deadline: .now + .seconds(10))
        guard case .closed? = end else {
            Issue.record("expected the end of the stream, got \(String(describing: end))")
            return
        }
        #expect(pair.client.unacknowledgedByteCount() == 0)
        pair.client.close()
        #expect(pair.client.unacknowledgedByteCount() == nil, "no count after close")
    }
}
