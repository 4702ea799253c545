import APNSupport
import APNTLS
import APNWire
import Dispatch
import Foundation
import APNGatewayServer
@testable import APNMockGateway
import APNTestSupport
import APNTestTraits
import Testing

/// Clients that misbehave — send without end, never send, open too many connections — and
/// a system that refuses threads: the gateway neither crashes, hangs nor grows without bound,
/// and counts what it refused (issue #16, hostile peers).
@Suite(.threadPerTest) struct HostilePeerTests {
    @Test func queueFeedbackRefusesATokenATupleCannotCarryAndServesTheLongestItCan() throws {
        let harness = try Harness()
        #expect(throws: MockGateway.FeedbackTokenError(length: 65_536)) {
            try harness.gateway.queueFeedback(time: 1, token: [UInt8](repeating: 1, count: 65_536))
        }
        try harness.gateway.queueFeedback(time: 2, token: [UInt8](repeating: 2, count: 65_535))
        let transcript = try harness.connect(feedback: true).readToEnd()
        #expect(transcript.end == .closed(clean: true))
        #expect(transcript.bytes.count == 6 + 65_535)
        #expect(Array(transcript.bytes.prefix(6)) == [0, 0, 0, 2, 0xFF, 0xFF])
    }

    @Test func stopEndsAConnectionWhoseClientNeverStopsSending() throws {
        let harness = try Harness()
        let handoff = Handoff(try harness.connect())
        let frames = bulkFrames(0..<4096)
        let sending = DispatchSemaphore(value: 0)
        // Sends until the gateway closes: the socket never runs empty meanwhile.
        Thread.detachNewThread {
            let client = handoff.take()
            while (try? client.send(frames)) != nil {}
            client.connection.close()
            sending.signal()
        }
        #expect(harness.gateway.waitForRecords(count: 20_000, timeout: .seconds(30)))
        #expect(harness.gateway.stop(timeout: .seconds(5)), "every thread ended, the busy connection too")
        let accepted = harness.gateway.recordCount
        #expect(sending.wait(timeout: .now() + 10) == .success, "the client's writes fail once the gateway closed")
        #expect(harness.gateway.recordCount == accepted, "nothing recorded after the stop")
    }

    @Test func discardOldestKeepsTheLatestRecordsAcrossFreedBlocks() throws {
        let harness = try Harness { $0.recordRetention = RecordRetention(limit: 10, whenFull: .discardOldest) }
        let count = 70_000  // more than one entry block (65,536) and several 4 MiB byte blocks
        // Kept open until everything is recorded: closing with unread session tickets would
        // reset the connection and lose what the gateway had not read yet.
        let client = try harness.connect()
        try client.send(bulkFrames(0..<UInt32(count)), timeout: .seconds(60))
        #expect(harness.gateway.waitForRecords(count: count, timeout: .seconds(60)))
        #expect(harness.gateway.recordCount == count)
        #expect(harness.gateway.discardedRecordCount == count - 10)
        let kept = harness.gateway.records
        #expect(kept.map(\.sequence) == Array(count - 9...count))
        #expect(kept == (count - 10..<count).map { bulkRecord(UInt32($0), sequence: $0 + 1) }, "intact after blocks were freed")
        #expect(harness.gateway.records(from: 0, limit: 2).map(\.sequence) == [count - 9, count - 8], "from the oldest kept")
        client.connection.close()
    }

    /// A limit of 0 (`apn mock-gateway` without `--record`) keeps nothing and copies nothing,
    /// yet counts every record, as storing and discarding each would.
    @Test func aLimitOfZeroCountsRecordsWithoutKeepingAny() throws {
        let harness = try Harness { $0.recordRetention = RecordRetention(limit: 0, whenFull: .discardOldest) }
        let client = try harness.connect()
        try client.send(bulkFrames(0..<100))
        #expect(harness.gateway.waitForRecords(count: 100, timeout: .seconds(10)))
        #expect(harness.gateway.recordCount == 100)
        #expect(harness.gateway.discardedRecordCount == 100)
        #expect(harness.gateway.records.isEmpty)
        client.connection.close()
    }

    @Test func pauseConnectionsReadsNothingMoreUntilRecordsAreReleased() throws {
        let harness = try Harness { $0.recordRetention = RecordRetention(limit: 5, whenFull: .pauseConnections) }
        let client = try harness.connect()
        try client.send(enhancedFrames(1...12))
        #expect(harness.gateway.waitForRecords(count: 5, timeout: .seconds(10)))
        #expect(!harness.gateway.waitForRecords(count: 6, timeout: .milliseconds(200)), "full: the connection waits")
        var copied: [MockGateway.Record] = []
        while copied.count < 12 {
            #expect(harness.gateway.waitForRecords(count: min(12, copied.count + 5), timeout: .seconds(10)))
            let batch = harness.gateway.records(from: copied.count)
            #expect(batch.count <= 5)
            copied += batch
            harness.gateway.releaseRecords(through: copied.count)
        }
        #expect(copied == (1...12).map { enhancedRecord($0, connection: 1, sequence: Int($0)) }, "none lost, none twice")
        #expect(harness.gateway.discardedRecordCount == 12)
        #expect(harness.gateway.records.isEmpty)
    }

    @Test func aConnectionBeyondTheLimitIsClosedBeforeItsHandshakeAndCounted() throws {
        let harness = try Harness { $0.maxConnections = 2 }
        let first = try harness.connect()
        let second = try harness.connect()
        #expect(throws: TLSError.self) { _ = try harness.connect() }
        #expect(harness.gateway.refusedConnectionCount == 1)
        try first.send(enhancedFrames(1...1))
        try second.send(enhancedFrames(2...2))
        #expect(harness.gateway.waitForRecords(count: 2, timeout: .seconds(10)), "those within the limit are served")
    }

    @Test func aSilentConnectionIsClosedAfterTheIdleTimeoutAndCounted() throws {
        let harness = try Harness { $0.idleTimeout = .milliseconds(200) }
        let silent = try harness.connect()
        #expect(try silent.readToEnd().end == .closed(clean: false))
        #expect(harness.gateway.idleTimeoutCount == 1)
        #expect(harness.gateway.waitForOpenConnections(atMost: 0, timeout: .seconds(10)))
    }

    @Test func aConnectionWithoutAThreadIsClosedAndCountedNotLeaked() throws {
        let noConnectionThreads = ThreadStarter { name, body in
            name.hasSuffix("-conn") ? false : ThreadStarter.system.start(name, body)
        }
        let harness = try Harness(
            gateway: MockGateway(configuration: MockGateway.Configuration(), threadStarter: noConnectionThreads))
        do {
            _ = try harness.connect()
            Issue.record("the handshake succeeded without a connection thread")
        } catch {
            #expect((error as? TLSError)?.kind != .timeout, "closed at once, not left open: \(error)")
        }
        #expect(harness.gateway.threadStartFailureCount == 1)
        #expect(harness.gateway.stop(), "no thread counted that never ran")
    }
}
