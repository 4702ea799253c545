import APNSupport
import APNTLS
import APNWire
import APNGatewayServer
import APNTestSupport
import APNTestTraits
import Testing

/// The server core with handlers of its own, no mock: it decodes, hands every read to the
/// handler, writes the error response it asks for and closes cleanly; and a handler whose
/// answers come later from another thread wakes the connection through its waker.
@Suite(.threadPerTest) struct BinaryServerTests {
    @Test func handsNotificationsToTheHandlerAndWritesItsErrorResponse() throws {
        let seen = try Seen()
        let harness = try ServerHarness(policy: AcceptingPolicy(seen: seen, refusing: 3), source: FixedFeedback(seen: seen, bytes: []))
        let client = try harness.connect()
        try client.send(frames(1...5))
        let transcript = try client.readToEnd()
        #expect(transcript.bytes == hex("08 08 00000003"))
        #expect(transcript.end == .closed(clean: true))
        #expect(seen.wait { $0.closed == 1 })
        // Nothing after the refused one is asked about; the peer is the client certificate.
        #expect(seen.current.identifiers == [1, 2, 3])
        #expect(seen.current.peers == ["com.example.app"])
    }

    @Test func tellsTheHandlerWhenTheClientFinished() throws {
        let seen = try Seen()
        let harness = try ServerHarness(policy: AcceptingPolicy(seen: seen), source: FixedFeedback(seen: seen, bytes: []))
        let client = try harness.connect()
        try client.send(frames(1...2))
        // close_notify and a half-close: a bare close with the server's session tickets
        // unread would be a reset, which may discard what the server has not read yet.
        _ = client.connection.shutdown()
        client.connection.shutdownWrite()
        #expect(try client.readToEnd().end == .closed(clean: false))
        #expect(seen.wait { $0.closed == 1 })
        #expect(seen.current.identifiers == [1, 2])
        #expect(seen.current.inputEnded == 1)
    }

    /// Paused (backpressure) or still reading, and before or after the client finished
    /// sending (close_notify, then a half-close: a bare FIN fails the TLS connection, so
    /// nothing can be written to it after): the waker brings the answer decided on another
    /// thread. A paused connection reads nothing, so it sees the client finish only later.
    @Test(arguments: [(false, false), (true, false), (false, true), (true, true)])
    func answersDecidedLaterArriveThroughTheWaker(pauses: Bool, clientFinishes: Bool) throws {
        let seen = try Seen()
        let wakers = WakerBox()
        let harness = try ServerHarness(
            policy: LaterPolicy(seen: seen, pauses: pauses, wakers: wakers), source: FixedFeedback(seen: seen, bytes: []))
        let client = try harness.connect()
        try client.send(frames(1...3))
        if clientFinishes {
            _ = client.connection.shutdown()
            client.connection.shutdownWrite()
        }
        #expect(seen.wait { $0.identifiers == [1, 2, 3] && (!clientFinishes || pauses || $0.inputEnded == 1) })
        seen.update { $0.answer = (status: 8, identifier: 2) }
        try #require(wakers.current).signal()
        let transcript = try client.readToEnd()
        #expect(transcript.bytes == hex("08 08 00000002"))
        #expect(transcript.end == .closed(clean: true))
        #expect(seen.wait { $0.closed == 1 })
    }

    @Test func aStopEndsAConnectionPausedUntilWoken() throws {
        let seen = try Seen()
        var harness: ServerHarness? = try ServerHarness(
            policy: LaterPolicy(seen: seen, pauses: true, wakers: WakerBox()), source: FixedFeedback(seen: seen, bytes: []))
        let client = try #require(harness).connect()
        try client.send(frames(1...1))
        #expect(seen.wait { $0.identifiers == [1] })
        let server = try #require(harness).server
        harness = nil  // stops the server, waiting for its threads
        #expect(server.connectionThreadCount == 0)
        #expect(seen.current.closed == 1)
    }
}

/// Command 1 frames for the identifiers, each with a token of 32 bytes and a small payload.
func frames(_ identifiers: ClosedRange<UInt32>) -> [UInt8] {
    var buffer = WireBuffer()
    for id in identifiers {
        buffer.writeEnhancedNotification(
            identifier: id, expiry: 0, token: [UInt8](repeating: UInt8(id), count: 32), payload: Array(#"{"aps":{}}"#.utf8))
    }
    return buffer.readableBytesArray
}
