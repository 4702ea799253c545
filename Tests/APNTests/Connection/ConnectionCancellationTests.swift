import APN
import Foundation
import APNMockGateway
import Testing
import APNTestSupport
import APNTestTraits

/// Cancelling the Task that awaits `send`, `flush` or `shutdown` returns at once with the
/// documented value; nothing is recalled, and no outcome is lost from the reports. The
/// clock is manual, so every wait below can only end by the cancellation.
@Suite("Connection: cancelling the Task that waits", .timeLimit(.minutes(10)), .threadPerTest)
struct ConnectionCancellationTests {
    /// A gateway that waits a minute for a handshake: on a loaded machine (the whole suite,
    /// ThreadSanitizer) its default 5 s could fail the first connect, and the reconnect
    /// backoff runs on the manual clock, which these tests never move that far.
    static func fixture() throws -> GatewayFixture {
        try GatewayFixture { $0.handshakeTimeout = .seconds(60) }
    }

    @Test("a cancelled send returns unknownFate(cancelled); the notification is still sent and reported")
    func cancelledSend() async throws {
        // The answer to the marker that follows the send is held back: only the grace
        // window, which cannot pass on the manual clock, could settle it before the cancel.
        var faults = MockGateway.Faults()
        faults.errorResponseDelay = .seconds(600)
        let fixture = try GatewayFixture(faults: faults) { $0.handshakeTimeout = .seconds(60) }
        let clock = ManualClock()
        let connection = Connection(options: fixture.options { $0.clock = .manual(clock) })
        let waiting = Task.immediate { await connection.send(note(1), to: device(1)) }
        await fixture.expectRecords(1)  // written; its grace window cannot pass on the manual clock
        waiting.cancel()
        #expect(await waiting.value == .unknownFate(.cancelled))
        await connection.acknowledgementBarrier()
        clock.advance(by: .seconds(3))  // past the fixture's 2 s grace window
        let report = await connection.shutdown()
        #expect(report.accepted == 1, "its real outcome is in the next report")
    }

    @Test("a send cancelled before it starts still pushes")
    func sendCancelledBeforeItStarts() async throws {
        let fixture = try Self.fixture()
        let connection = Connection(options: fixture.options())
        let waiting = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await connection.send(note(1), to: device(1))
        }
        #expect(await waiting.value == .unknownFate(.cancelled))
        let report = await connection.shutdown()
        #expect(report.accepted == 1)
        #expect(fixture.mock.recordCount == 1)
    }

    @Test("a cancelled flush returns an empty report; its outcomes are in the next one")
    func cancelledFlush() async throws {
        let fixture = try Self.fixture()
        let clock = ManualClock()
        let connection = Connection(options: fixture.options { $0.clock = .manual(clock) })
        connection.push(note(1), to: device(1))
        await fixture.expectRecords(1)
        let waiting = Task { await connection.flush(confirm: false) }
        waiting.cancel()
        let cancelled = await waiting.value
        #expect(cancelled.total == 0 && !cancelled.confirmed)
        await connection.acknowledgementBarrier()
        clock.advance(by: .seconds(3))  // past the fixture's 2 s grace window
        let next = await connection.flush(confirm: false)
        #expect(next.accepted == 1, "kept for the next report")
        await connection.shutdown()
    }

    @Test("a cancelled shutdown returns an empty report; the shutdown goes on and reports next time")
    func cancelledShutdown() async throws {
        let fixture = try Self.fixture()
        let clock = ManualClock()
        let connection = Connection(options: fixture.options { $0.clock = .manual(clock) })
        connection.push(note(1), to: device(1))
        await fixture.expectRecords(1)
        let waiting = Task { await connection.shutdown() }
        waiting.cancel()
        #expect(await waiting.value.total == 0, "returned: its command was posted before it waited")
        connection.push(note(2), to: device(2))
        await connection.acknowledgementBarrier()
        clock.advance(by: .seconds(3))  // past the fixture's 2 s grace window
        let report = await connection.shutdown()
        #expect(report.accepted == 1, "\(report)")
        #expect(report.failed == 1, "2 came after the shutdown: 515")
    }
}

@Suite("Feedback: cancelling the Task that reads", .timeLimit(.minutes(10)), .threadPerTest)
struct FeedbackCancellationTests {
    @Test("a cancelled read ends the held visit and returns what it read")
    func cancelledRead() async throws {
        let tuples: [UInt8] = (1...3).flatMap { (n: Int) -> [UInt8] in [0, 0, 0, UInt8(n), 0, 32] + device(n).token }
        let server = try HeldTLSServer(sending: tuples)
        defer { server.stop() }
        // No timeouts: only the cancellation can end this visit.
        let feedback = Feedback(options: server.options {
            $0.readTimeout = .zero
            $0.interval = nil
        })
        let reading = Task.immediate { try await feedback.read() }
        // Waited for on a thread of its own: blocking the cooperative pool could keep the
        // reading Task from starting.
        let connected = await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: server.waitForConnections(1)) }
        }
        #expect(connected)
        reading.cancel()
        let entries: [Feedback.Entry] = try await reading.value
        #expect(entries.map { $0.device } == Array((1...3).map { device($0) }.prefix(entries.count)),
                "a prefix of what the service sent, in order")
    }
}
