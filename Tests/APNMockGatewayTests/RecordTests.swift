import APNSupport
import APNTLS
import APNWire
import Dispatch
import Foundation
import APNMockGateway
import APNTestSupport
import APNTestTraits
import Synchronization
import Testing

/// How records are kept and read back: reading from an index, and every field exact over
/// enough notifications to fill several of the gateway's storage blocks.
@Suite(.threadPerTest) struct RecordTests {
    @Test func readsRecordsFromAnIndex() throws {
        let harness = try Harness()
        let client = try harness.connect()
        try client.send(enhancedFrames(1...5))
        #expect(harness.gateway.waitForRecords(count: 5, timeout: .seconds(10)))

        let all = (1...5).map { enhancedRecord($0, connection: 1, sequence: Int($0)) }
        #expect(harness.gateway.recordCount == 5)
        #expect(harness.gateway.records == all)
        #expect(harness.gateway.records(from: 0) == all)
        #expect(harness.gateway.records(from: 3) == Array(all[3...]))
        #expect(harness.gateway.records(from: 5) == [])
        #expect(harness.gateway.records(from: 9) == [])
    }

    /// Record waiters are woken when their own count is reached (not on every read): two
    /// waiters with different counts, on other threads, both see theirs.
    @Test func waitersForDifferentCountsAreEachWokenAtTheirs() throws {
        let harness = try Harness()
        let gateway = harness.gateway
        let results = Lock<[Int: Bool]>([:])
        let done = DispatchSemaphore(value: 0)
        for count in [5, 10] {
            // Threads, not tasks: these waits block.
            Thread.detachNewThread {
                let reached = gateway.waitForRecords(count: count, timeout: .seconds(20))
                results.withLock { $0[count] = reached }
                done.signal()
            }
        }
        let client = try harness.connect()
        try client.send(enhancedFrames(1...5))
        #expect(done.wait(timeout: .now() + 20) == .success)
        #expect(results.withLock { $0 } == [5: true], "the waiter for 10 still waits")
        try client.send(enhancedFrames(6...10))
        #expect(done.wait(timeout: .now() + 20) == .success)
        #expect(results.withLock { $0 } == [5: true, 10: true])
    }

    @Test func startsEmpty() throws {
        let harness = try Harness()
        #expect(harness.gateway.recordCount == 0)
        #expect(harness.gateway.records == [])
        #expect(harness.gateway.records(from: 0) == [])
    }

    /// 70,000 notifications fill two 65,536-entry blocks and, with payloads of 40 to 140
    /// bytes, two 4 MiB byte blocks: each record must come back as it was sent, whatever
    /// block it landed in, with commands 0, 1 and 2 and absent optional items mixed.
    @Test func keepsEveryFieldAcrossStorageBlocks() throws {
        let count = 70_000
        let harness = try Harness()
        let client = try harness.connect()
        var buffer = WireBuffer()
        for sequence in 1...count {
            mixedWrite(sequence, into: &buffer)
            if buffer.readableBytes >= 1 << 20 || sequence == count {
                try client.send(buffer.readableBytesArray)
                buffer = WireBuffer()
            }
        }
        #expect(harness.gateway.waitForRecords(count: count, timeout: .seconds(60)))

        let records = harness.gateway.records
        #expect(records.count == count)
        #expect(records == (1...count).map(mixedRecord))
        #expect(harness.gateway.records(from: 65_530) == Array(records[65_530...]))
    }
}

/// Notification `sequence` of the mixed stream: its command, items and payload length vary.
private func mixedWrite(_ sequence: Int, into buffer: inout WireBuffer) {
    let record = mixedRecord(sequence)
    switch record.command {
    case .simple:
        buffer.writeSimpleNotification(token: record.token, payload: record.payload)
    case .enhanced:
        buffer.writeEnhancedNotification(
            identifier: record.identifier ?? 0, expiry: record.expiry ?? 0, token: record.token, payload: record.payload)
    case .frame where record.identifier != nil:
        buffer.writeFrameNotification(
            identifier: record.identifier ?? 0, expiry: record.expiry ?? 0, priority: record.priority ?? 10,
            token: record.token, payload: record.payload)
    case .frame:
        // Items 1 and 2 only: the encoder always writes all five.
        buffer.write(minimalFrame(token: record.token, payload: record.payload))
    }
}

/// A command 2 frame with only the token and payload items.
private func minimalFrame(token: [UInt8], payload: [UInt8]) -> [UInt8] {
    func u16(_ value: Int) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }
    let items = [1] + u16(token.count) + token + [2] + u16(payload.count) + payload
    return [2] + withUnsafeBytes(of: UInt32(items.count).bigEndian) { Array($0) } + items
}

/// The record the gateway keeps for notification `sequence` of the mixed stream.
private func mixedRecord(_ sequence: Int) -> MockGateway.Record {
    let command: Command = [.simple, .enhanced, .frame, .frame][sequence % 4]
    let hasItems = command == .enhanced || (command == .frame && sequence % 8 == 2)
    let tokenBytes = withUnsafeBytes(of: UInt32(sequence).bigEndian) { Array($0) } + [UInt8](repeating: 0x5A, count: 28)
    let text = #"{"aps":{"alert":"\#(sequence)"},"p":""#
    let payloadBytes = Array((text + String(repeating: "y", count: 40 + sequence % 101 - text.utf8.count) + #""}"#).utf8)
    return MockGateway.Record(
        connection: 1, sequence: sequence, command: command,
        identifier: hasItems ? UInt32(sequence) : nil, token: tokenBytes, payload: payloadBytes,
        expiry: hasItems ? UInt32(1_700_000_000 + sequence) : nil,
        priority: command == .frame && hasItems ? (sequence % 16 == 2 ? 5 : 10) : nil)
}
