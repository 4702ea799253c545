import APN
import APNBridge
import APNMockGateway
import APNTLS
import APNWire
import Dispatch
import Foundation
import Testing
import APNTestSupport

/// #40: a legacy client at its defaults — node-apn 1.x writes as fast as its socket takes,
/// keeps the last 1,000 notifications it wrote, and after an error response resends those
/// of them that followed the refused one — loses nothing through the bridge with the
/// upstream answering 50 ms late: what it wrote beyond its cache was collected and
/// forwarded, what it resends from its cache is answered from the record.
@Suite("the bridge: nothing a client wrote is discarded", .timeLimit(.minutes(5)))
struct BridgeRefusalDistanceTests {
    /// node-apn's default `cacheLength`.
    static let cache = 1_000

    @Test(
        "a client writing as fast as its socket takes: every notification but the refused one upstream once",
        arguments: [Command.enhanced, .frame])
    func fastWriterLosesNothing(command: Command) async throws {
        let count = 6_000
        let refused = 1_500
        var faults = HTTP2MockGateway.Faults()
        faults.rejectToken(device(refused).hexString, reason: .badDeviceToken)
        faults.responseDelay = .milliseconds(50)
        let fixture = try BridgeFixture(faults: faults)
        let frames = RawFrames(count: count, command: command)

        // The first connection: written until the error response is read.
        let first = try RawBinaryClient(fixture)
        let run = try first.write(frames, from: 0)
        let response = try #require(run.response, "no error response after \(run.written) written")
        #expect(response == ErrorResponse(status: .invalidToken, identifier: frames.identifier(refused, round: 0)))
        #expect(try first.readToEnd().end != .timedOut, "the bridge closes once the client is quiet")
        // How far past the refused one the client had written: on loopback its kernel send
        // buffer alone holds about a megabyte, far beyond node-apn's cache (PROTOCOL.md §8).
        let distance = run.written - 1 - refused
        print("refusal distance, \(command): \(distance) notifications written after the refused one")

        // The second: the cache's resends after the refused one (new identifiers), then the rest.
        let resent = max(refused + 1, run.written - Self.cache)..<run.written
        let second = try RawBinaryClient(fixture)
        let more = try second.write(frames, indices: Array(resent) + Array(run.written..<count), round: 1)
        #expect(more.response == nil, "nothing after the first refusal is refused")

        let upstream = fixture.upstream
        #expect(await onThread { upstream.waitForRecords(count: count - 1, timeout: .seconds(120)) })
        let deliveries = fixture.deliveries()
        let missing = (0..<count).filter { $0 != refused && deliveries[device($0).hexString] != 1 }
        #expect(missing.isEmpty, "not delivered exactly once: \(missing.prefix(20)) (\(missing.count))")
        #expect(deliveries[device(refused).hexString] == nil)
        let summary = fixture.bridge.summary.counts
        #expect(summary.refusalDistances == 1)
        #expect(summary.refusalDistanceMax == distance, "the bridge read everything the client wrote past the refusal")
        #expect(summary.resendsAnswered == resent.count, "every resend answered from the record")
        #expect(upstream.recordCount == count - 1)
    }

    /// A client that closes as soon as it reads the error response (PyAPNs, `Connection`)
    /// and resends at once on a new connection would race what the bridge still collects
    /// from the old one: both copies would go upstream. So a connection opened while another
    /// of the tenant collects is held, reading nothing, until the collection ends.
    @Test("a connection opened while another collects is read only once the collection ended")
    func aNewConnectionWaitsForACollection() async throws {
        let refused = 100
        var faults = HTTP2MockGateway.Faults()
        faults.rejectToken(device(refused).hexString, reason: .badDeviceToken)
        faults.responseDelay = .milliseconds(50)
        // The collection ends when the first client closes, not when a loaded machine keeps
        // it quiet for a second.
        let fixture = try BridgeFixture(faults: faults) { $0.collectionQuietPeriod = .seconds(60) }
        let frames = RawFrames(count: 20_000, command: .enhanced)
        let first = try RawBinaryClient(fixture)
        let run = try first.write(frames, indices: Array(0..<600), round: 0, awaitingResponse: false)
        let response = try run.response ?? first.awaitResponse()
        #expect(response == ErrorResponse(status: .invalidToken, identifier: frames.identifier(refused, round: 0)))
        #expect(await fixture.wait { $0.counts.received == run.written }, "everything the first wrote, collected")

        // The second connection writes while the first still collects (it is open).
        let second = try RawBinaryClient(fixture)
        let more = Array(10_000..<11_000)
        #expect(try second.write(frames, indices: more, round: 0, awaitingResponse: false).written == more.count)
        // One more on the first: once the bridge has it, it would have had the second's
        // too, had it read them.
        #expect(try first.write(frames, indices: [600], round: 0, awaitingResponse: false).written == 1)
        #expect(await fixture.wait { $0.counts.received >= run.written + 1 })
        #expect(fixture.bridge.summary.counts.received == run.written + 1, "the second connection was held")

        first.connection.close()
        #expect(await fixture.wait { $0.counts.received == run.written + 1 + more.count }, "released when it ended")
        second.connection.close()
        #expect(await fixture.wait(timeout: .seconds(120)) { $0.unfinishedSessions == 0 && $0.counts.connections == 2 })
        let deliveries = fixture.deliveries()
        let expected = Array(0...600).filter { $0 != refused } + more
        #expect(expected.allSatisfy { deliveries[device($0).hexString] == 1 }, "each once")
        #expect(deliveries.count == expected.count)
    }

    /// #40 item 4: a token the upstream answered BadDeviceToken for is refused at once
    /// the next time, on any connection of the tenant, without a request.
    @Test("a token the upstream called bad is refused at once the next time, without a request")
    func aKnownBadTokenIsRefusedWithoutARequest() async throws {
        let bad = 3
        var faults = HTTP2MockGateway.Faults()
        faults.rejectToken(device(bad).hexString, reason: .badDeviceToken)
        let fixture = try BridgeFixture(faults: faults)
        let frames = RawFrames(count: 10, command: .frame)
        let first = try RawBinaryClient(fixture)
        let run = try first.write(frames, indices: [0, 1, 2, 3], round: 0, awaitingResponse: false)
        #expect(try run.response ?? first.awaitResponse() == ErrorResponse(status: .invalidToken, identifier: 3))
        first.connection.close()

        let second = try RawBinaryClient(fixture)
        let again = try second.write(frames, indices: [4, 3, 5], round: 1, awaitingResponse: false)
        #expect(try again.response ?? second.awaitResponse() == ErrorResponse(status: .invalidToken, identifier: 1_000_003))
        second.connection.close()
        #expect(await fixture.wait { $0.unfinishedSessions == 0 && $0.counts.connections == 2 })
        let counts = fixture.bridge.summary.counts
        #expect(counts.refusedKnownBad == 1)
        #expect(counts.refused[.invalidToken] == 2)
        #expect(fixture.upstream.summary.reasons[.badDeviceToken] == 1, "one request for the bad token, not two")
        #expect(fixture.deliveries().count == 5, "0, 1, 2, 4, 5")
    }

    /// #40 item 6: a client that gives up on a connection the bridge is not reading (its
    /// window full, the upstream a second away) with a reset, as `Connection` does when it
    /// has bytes unsent, and resends on a new one what it wrote there: the bridge sees the
    /// end at once, so what it forwarded for the first connection — answered or not — is in
    /// the record before the resends arrive, and nothing goes upstream twice.
    @Test("a client that resets while the bridge holds back its reads, then resends: each notification upstream once")
    func closeWhilePausedThenResendAll() async throws {
        let count = 1_000
        let window = 400
        var faults = HTTP2MockGateway.Faults()
        faults.responseDelay = .seconds(1)
        let closed = DispatchSemaphore(value: 0)
        let fixture = try BridgeFixture(faults: faults) { configuration in
            configuration.window = window
            configuration.log = { event in
                if case .connectionClosed = event { closed.signal() }
            }
        }
        let frames = RawFrames(count: count, command: .frame)
        // A window's worth: whether the reset comes before their answers or after (a loaded
        // machine), the bridge read no more than it remembers.
        let first = try RawBinaryClient(fixture)
        let run = try first.write(frames, indices: Array(0..<window), round: 0, awaitingResponse: false)
        #expect(run.written == window && run.response == nil)
        #expect(await fixture.wait { $0.counts.forwarded >= 1 }, "the bridge read some")
        first.connection.reset()
        // The bridge settles the connection as soon as its thread sees the reset; the
        // client reconnecting after that is what the test pins (a reconnect takes a
        // handshake, the bridge's reaction microseconds, but a loaded machine may reorder them).
        #expect(await onThread { closed.wait(timeout: .now() + 60) == .success })

        let second = try RawBinaryClient(fixture)
        let again = try second.write(frames, indices: Array(0..<count), round: 1)
        #expect(again.response == nil)
        second.connection.close()
        // Both sessions over: every notification read has its answer.
        #expect(await fixture.wait(timeout: .seconds(120)) { $0.unfinishedSessions == 0 && $0.counts.connections == 2 })
        let upstream = fixture.upstream
        let deliveries = fixture.deliveries()
        let twice = (0..<count).filter { deliveries[device($0).hexString] != 1 }
        #expect(twice.isEmpty, "not upstream exactly once: \(twice.prefix(20)) (\(twice.count))")
        let counts = fixture.bridge.summary.counts
        #expect(counts.forwarded == count)
        #expect(counts.resendsAnswered == counts.received - count, "everything the first read was answered from the record")
        #expect(upstream.recordCount == count)
    }
}

/// Enhanced (command 1) or frame (command 2) notifications `0 ..< count`, each with the
/// token ``device(_:)`` gives it and a payload of about 100 bytes, encoded once a round.
struct RawFrames {
    let count: Int
    let command: Command

    /// The identifier of notification `n` in resend round `round` (new ones each round,
    /// as node-apn gives a resend).
    func identifier(_ n: Int, round: Int) -> UInt32 {
        UInt32(round * 1_000_000 + n)
    }

    /// The bytes of `indices`, and where each one's frame ends.
    func encode(_ indices: [Int], round: Int) -> (bytes: [UInt8], ends: [Int]) {
        var buffer = WireBuffer()
        var ends: [Int] = []
        let padding = String(repeating: "x", count: 60)
        for n in indices {
            let payload = Array(#"{"aps":{"alert":"n\#(n) \#(padding)"}}"#.utf8)
            if command == .frame {
                buffer.writeFrameNotification(
                    identifier: identifier(n, round: round), expiry: 0, priority: 10, token: device(n).token, payload: payload)
            } else {
                buffer.writeEnhancedNotification(
                    identifier: identifier(n, round: round), expiry: 0, token: device(n).token, payload: payload)
            }
            ends.append(buffer.readableBytes)
        }
        return (buffer.readableBytesArray, ends)
    }
}

/// A binary client that writes as fast as its socket takes and watches for the error
/// response between writes, as node-apn does: when the response arrives it finishes the
/// notification it was writing (node's own buffer) and writes nothing more.
struct RawBinaryClient {
    let connection: TLSConnection

    /// What a ``write(_:indices:round:)`` did.
    struct Run {
        /// Notifications written whole.
        var written: Int
        /// The error response read, if one came.
        var response: ErrorResponse?
    }

    /// A client of the fixture's tenant, connected to `port` (the fixture's bridge's by default).
    init(_ fixture: BridgeFixture, port: UInt16? = nil) throws {
        let client = try fixture.authority.issueClientCertificate(topic: BridgeFixture.topic)
        let context = try TLSClientContext(trustedCertificates: [fixture.authority.certificate], credentials: client.credentials())
        connection = try TLSConnection.connect(
            host: "127.0.0.1", port: port ?? fixture.bridge.gatewayPort, context: context, timeout: .seconds(10))
        try connection.handshake(deadline: .now + .seconds(30))
    }

    /// Writes `frames` from `start` on, in order.
    func write(_ frames: RawFrames, from start: Int) throws -> Run {
        try write(frames, indices: Array(start..<frames.count), round: 0)
    }

    /// Writes the notifications `indices` of `frames` (identifiers of `round`); returns how
    /// many of them were written whole and the response, if one came before the last.
    /// Without a response it then waits up to 2 s for one, when `awaitingResponse`.
    func write(_ frames: RawFrames, indices: [Int], round: Int, awaitingResponse: Bool = true) throws -> Run {
        let (bytes, ends) = frames.encode(indices, round: round)
        var offset = 0
        var decoder = ErrorResponseDecoder()
        var scratch = [UInt8](repeating: 0, count: 64)
        let deadline = ContinuousClock.now + .seconds(120)
        func readResponse() throws -> ErrorResponse? {
            while case .done(let count) = scratch.withUnsafeMutableBytes({ connection.read(into: $0) }) {
                decoder.feed(Array(scratch[..<count]))
            }
            return try decoder.next()
        }
        while offset < bytes.count {
            let step = bytes[offset...].withUnsafeBytes { connection.write(UnsafeRawBufferPointer(rebasing: $0.prefix(16_384))) }
            switch step {
            case .done(let count):
                // node-apn's event loop takes the socket's data between its writes.
                offset += count
            case .wantRead, .wantWrite:
                _ = try connection.waitUntil(readable: true, writable: true, deadline: deadline)
                guard ContinuousClock.now < deadline else { throw TLSError(.timeout, "the bridge stopped reading") }
            case .closed, .failed:
                return Run(written: ends.count { $0 <= offset }, response: try readResponse())
            }
            if let response = try readResponse() {
                // node's buffer still flushes the notification it had begun.
                let end = ends.first { $0 >= offset } ?? offset
                if end > offset { try? connection.writeAll(Array(bytes[offset..<end]), deadline: .now + .seconds(10)) }
                return Run(written: ends.count { $0 <= end }, response: response)
            }
        }
        if awaitingResponse { decoder.feed(try TestClient(connection).readToEnd(timeout: .seconds(2)).bytes) }
        return Run(written: ends.count, response: try decoder.next())
    }

    /// Reads until an error response has come whole (or 30 s), not until the close.
    func awaitResponse() throws -> ErrorResponse? {
        var decoder = ErrorResponseDecoder()
        var buffer = [UInt8](repeating: 0, count: 64)
        let deadline = ContinuousClock.now + .seconds(30)
        while true {
            if let response = try decoder.next() { return response }
            guard case .bytes(let count) = buffer.withUnsafeMutableBytes({ connection.read(into: $0, deadline: deadline) })
            else { return nil }
            decoder.feed(Array(buffer[..<count]))
        }
    }

    /// Reads until the bridge closes (or 30 s).
    func readToEnd() throws -> TestClient.Transcript {
        try TestClient(connection).readToEnd(timeout: .seconds(30))
    }
}
