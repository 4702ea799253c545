import APNTestSupport
import APNTestTraits
import APNTLS
import Testing

/// Data flow after the handshake: back-pressure and the three ways a connection ends.
@Suite(.threadPerTest) struct StreamTests {
    private func connectedPair(sessionTickets: Bool = true) throws -> LoopbackPair {
        let fixture = try Fixture()
        let pair = try LoopbackPair(
            server: fixture.serverContext(sessionTickets: sessionTickets), client: fixture.clientContext())
        let outcome = pair.handshake()
        try #require(outcome.client.isDone && outcome.server.isDone)
        return pair
    }

    @Test(arguments: [false, true])
    func stalledReaderMakesTheWriterWaitThenEveryByteArrivesInOrder(readAhead: Bool) throws {
        let pair = try connectedPair()
        pair.server.setReadAhead(readAhead)
        let payload = patternBytes(8 << 20, seed: 42)
        let deadline = ContinuousClock.now + .seconds(120)  // a hang detector, not a speed check
        var offset = 0
        var sawWantWrite = false
        // Phase 1: the server does not read; the client writes until the sockets are full.
        while !sawWantWrite && offset < payload.count {
            let chunk = min(65_536, payload.count - offset)
            let step = payload.withUnsafeBytes { pair.client.write(UnsafeRawBufferPointer(rebasing: $0[offset..<offset + chunk])) }
            switch step {
            case .done(let n): offset += n
            case .wantWrite: sawWantWrite = true
            default: Issue.record("unexpected \(step)"); return
            }
        }
        #expect(sawWantWrite, "the writer never saw WANT_WRITE after \(offset) bytes")
        #expect(offset < payload.count)

        // Phase 2: the server resumes; the client retries the same chunk, then the rest.
        var received: [UInt8] = []
        received.reserveCapacity(payload.count)
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while received.count < payload.count {
            #expect(ContinuousClock.now < deadline)
            if ContinuousClock.now >= deadline { return }
            var progressed = false
            if offset < payload.count {
                let chunk = min(65_536, payload.count - offset)
                let step = payload.withUnsafeBytes { pair.client.write(UnsafeRawBufferPointer(rebasing: $0[offset..<offset + chunk])) }
                if case .done(let n) = step { offset += n; progressed = true }
                else if case .wantWrite = step {} else { Issue.record("write: \(step)"); return }
            }
            let step = buffer.withUnsafeMutableBytes { pair.server.read(into: $0) }
            switch step {
            case .done(let n): received += buffer[0..<n]; progressed = true
            case .wantRead: break
            default: Issue.record("read: \(step)"); return
            }
            if !progressed {
                _ = try pair.server.waitUntil(.readable, deadline: .now + .milliseconds(50))
            }
        }
        #expect(received.count == payload.count)
        #expect(received == payload)
    }

    @Test func cleanCloseIsDistinguishedFromAbruptClose() throws {
        let clean = try connectedPair()
        guard case .done = clean.client.shutdown() else { Issue.record("shutdown failed"); return }
        let (_, cleanEnd) = readAll(clean.server, count: 1, deadline: .now + .seconds(5))
        guard case .closed(clean: true)? = cleanEnd else {
            Issue.record("expected a clean close, got \(String(describing: cleanEnd))")
            return
        }

        // Without tickets: a TLS 1.3 ticket left unread in the client's socket would turn
        // its close() into a TCP reset (Linux resets when closing with unread data).
        let abrupt = try connectedPair(sessionTickets: false)
        abrupt.client.close()
        let (_, abruptEnd) = readAll(abrupt.server, count: 1, deadline: .now + .seconds(5))
        guard case .closed(clean: false)? = abruptEnd else {
            Issue.record("expected an abrupt close, got \(String(describing: abruptEnd))")
            return
        }
    }

    @Test func resetIsAnError() throws {
        let pair = try connectedPair()
        pair.client.reset()
        let (_, end) = readAll(pair.server, count: 1, deadline: .now + .seconds(5))
        guard case .failed(let error)? = end else {
            Issue.record("expected a reset, got \(String(describing: end))")
            return
        }
        #expect(error.kind == .connectionReset)
        #expect(error.errno != nil)
    }

    @Test func writingToAResetPeerFailsWithoutSIGPIPE() throws {
        let pair = try connectedPair()
        pair.server.reset()
        let bytes = patternBytes(1 << 20, seed: 7)
        let error = #expect(throws: TLSError.self) { try pair.client.writeAll(bytes, deadline: .now + .seconds(10)) }
        #expect(error?.kind == .connectionReset)
    }

    @Test func withReadAheadSmallReadsDrainOpenSSLsBufferBeforeWaitingOnTheSocket() throws {
        let pair = try connectedPair()
        pair.server.setReadAhead(true)
        let payload = patternBytes(200_000, seed: 7)  // fits the socket buffers: written before reading
        let deadline = ContinuousClock.now + .seconds(120)  // a hang detector, not a speed check
        try pair.client.writeAll(payload, deadline: deadline)
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 100)
        while received.count < payload.count, ContinuousClock.now < deadline {
            let step = buffer.withUnsafeMutableBytes { pair.server.read(into: $0) }
            switch step {
            case .done(let n): received += buffer[0..<n]
            case .wantRead:
                // Must not miss what OpenSSL already holds: the socket may be empty by now.
                _ = try pair.server.waitUntil(.readable, deadline: deadline)
            default: Issue.record("read: \(step)"); return
            }
        }
        #expect(received == payload)
    }
}
