import Dispatch
import Foundation
import MockGateway
import APNTLS
import Synchronization

/// Appends accepted notifications to the record file as JSON lines, from a thread that waits
/// on the gateway's record count (a condition wait) rather than polling.
///
/// Records are taken in batches of ``batchSize``, their lines gathered into one buffer
/// written with one `write(2)` per ``bufferSize`` (not one a line), and released from the
/// gateway as soon as their lines are built. The gateway keeps at most ``retention`` records
/// and pauses its connections when that many wait (``RecordRetention/Overflow/pauseConnections``):
/// a writer that falls behind slows the clients down instead of growing memory, and at
/// shutdown there are at most that many records left to write.
final class RecordWriter: Sendable {
    /// Records taken from the gateway at a time.
    static let batchSize = 4096
    /// Bytes of lines gathered before a write.
    static let bufferSize = 1 << 20
    /// What the gateway keeps for a writer: 65,536 records waiting at most.
    static let retention = RecordRetention(limit: 1 << 16, whenFull: .pauseConnections)

    /// The lines of at most `limit` records from position `start`, and the position after the last.
    typealias Batch = @Sendable (_ start: Int, _ limit: Int) -> (lines: [String], end: Int)

    private let waitForRecords: @Sendable (Int) -> Bool
    private let batch: Batch
    private let release: @Sendable (Int) -> Void
    private let descriptor: Int32
    private let stopping = Atomic<Bool>(false)
    /// How many records were written (the position of the next).
    private let written = Lock(0)
    private let finished = DispatchSemaphore(value: 0)

    /// Writes the records of `gateway` (either kind) to `descriptor`.
    init<Gateway: RecordSource>(_ gateway: Gateway, descriptor: Int32) {
        self.descriptor = descriptor
        waitForRecords = { gateway.waitForRecords(count: $0, timeout: .seconds(1)) }
        batch = { start, limit in
            let records = gateway.records(from: start, limit: limit)
            return (records.map(Gateway.line), records.last.map(Gateway.sequence) ?? start)
        }
        release = { gateway.releaseRecords(through: $0) }
    }

    /// Starts the writing thread.
    func start() {
        let thread = Thread { [self] in
            while !stopping.load(ordering: .sequentiallyConsistent) {
                let next = written.withLock { $0 } + 1
                if waitForRecords(next) {
                    drain(upTo: .max)
                }
            }
            finished.signal()
        }
        thread.name = "apn record writer"
        thread.start()
    }

    /// Asks the thread to stop after its current wait or batch (stopping the gateway ends
    /// the wait).
    func requestStop() {
        stopping.store(true, ordering: .sequentiallyConsistent)
    }

    /// Waits for the thread, then writes the records up to position `end` (the count the
    /// summary reports, taken once the gateway stopped), so the file has exactly that many.
    func finish(upTo end: Int) {
        finished.wait()
        drain(upTo: end)
    }

    /// Writes the records from the last written to position `end` (or as many as there are),
    /// in batches, releasing each batch from the gateway once its lines are built.
    private func drain(upTo end: Int) {
        written.withLock { written in
            var buffer: [UInt8] = []
            buffer.reserveCapacity(Self.bufferSize + 64 * 1024)
            while written < end {
                let (lines, next) = batch(written, min(Self.batchSize, end - written))
                guard !lines.isEmpty else { break }
                for line in lines {
                    buffer.append(contentsOf: line.utf8)
                    buffer.append(UInt8(ascii: "\n"))
                }
                written = next
                release(next)
                if buffer.count >= Self.bufferSize {
                    LineWriter.write(bytes: buffer, to: descriptor)
                    buffer.removeAll(keepingCapacity: true)
                }
                // Between batches, a stop ends the thread's drain: ``finish(upTo:)`` writes the rest.
                if end == .max && stopping.load(ordering: .sequentiallyConsistent) { break }
            }
            if !buffer.isEmpty { LineWriter.write(bytes: buffer, to: descriptor) }
        }
    }
}

/// A gateway whose records a ``RecordWriter`` writes: ``MockGateway`` and ``HTTP2MockGateway``.
protocol RecordSource: Sendable {
    /// The gateway's record type.
    associatedtype Record
    /// Waits until `count` records were accepted, or `timeout` passes, or the gateway stops.
    func waitForRecords(count: Int, timeout: Duration) -> Bool
    /// At most `limit` records from position `start` on.
    func records(from start: Int, limit: Int) -> [Record]
    /// Frees the records up to the one with `sequence`.
    func releaseRecords(through sequence: Int)
    /// A record's line in the record file.
    static func line(_ record: Record) -> String
    /// A record's place among all accepted (1-based).
    static func sequence(_ record: Record) -> Int
}

extension MockGateway: RecordSource {
    static func line(_ record: Record) -> String { RecordLine.line(record) }
    static func sequence(_ record: Record) -> Int { record.sequence }
}

extension HTTP2MockGateway: RecordSource {
    static func line(_ record: Record) -> String { RecordLine.line(record) }
    static func sequence(_ record: Record) -> Int { record.sequence }
}
