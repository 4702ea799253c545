import APNSupport
import Dispatch
import Foundation
import APNMockGateway
import Synchronization

/// Appends accepted notifications to the record file as JSON lines, from a thread that waits
/// on the gateway's record count (a condition wait) rather than polling.
///
/// Records are taken in batches of ``batchSize`` (waiting ``batchWait`` at most for one to
/// fill) — copied out under the gateway's lock in one
/// acquisition, formatted after it into one reused buffer (``RecordLineBuffer``) — written with
/// one `write(2)` per ``bufferSize`` (not one a line), and released from the gateway as soon as
/// their lines are built. The gateway keeps at most ``retention`` records and pauses its
/// connections when that many wait (``RecordRetention/Overflow/pauseConnections``): a writer
/// that falls behind slows the clients down instead of growing memory, and at shutdown there
/// are at most that many records left to write.
final class RecordWriter: Sendable {
    /// Records taken from the gateway at a time.
    static let batchSize = 4096
    /// How long the thread waits for a whole batch once a record is there.
    static let batchWait = Duration.milliseconds(5)
    /// Bytes of lines gathered before a write.
    static let bufferSize = 1 << 20
    /// What the gateway keeps for a writer: 65,536 records waiting at most.
    static let retention = RecordRetention(limit: 1 << 16, whenFull: .pauseConnections)
    /// The writing threads' names, as `top -H` and `/proc/PID/task/*/comm` show them.
    static let binaryThreadName = "apn-record"
    static let http2ThreadName = "apn-record-h2"
    static let broadcastThreadName = "apn-record-bc"

    private let source: any RecordSource
    private let descriptor: Int32
    private let threadName: String
    private let stopping = Atomic<Bool>(false)
    /// How many records were written (the position of the next), and the buffer their lines
    /// are gathered in.
    private let state = Lock(State())
    private let finished = DispatchSemaphore(value: 0)

    private struct State: ~Copyable {
        var written = 0
        var lines = RecordLineBuffer(capacity: RecordWriter.bufferSize + (1 << 20))
    }

    /// Writes the records of `gateway` (either kind) to `descriptor`, from a thread named
    /// `threadName`.
    init(_ gateway: some RecordSource, descriptor: Int32, threadName: String) {
        source = gateway
        self.descriptor = descriptor
        self.threadName = threadName
    }

    /// Starts the writing thread.
    func start() {
        CommandThread.start(threadName) { [self] in
            while !stopping.load(ordering: .sequentiallyConsistent) {
                let written = state.withLock { $0.written }
                guard source.waitForRecords(count: written + 1, timeout: .seconds(1)) else { continue }
                // Then a batch's worth, or a moment: at full rate each wake-up takes a whole
                // batch (the connections wake this thread once a batch, not once a read, and
                // each write(2) is large); at a low rate lines still reach the file at once.
                _ = source.waitForRecords(count: written + Self.batchSize, timeout: Self.batchWait)
                drain(upTo: .max)
            }
            finished.signal()
        }
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
        state.withLock { state in
            while state.written < end {
                let next = source.appendRecordLines(
                    from: state.written, limit: min(Self.batchSize, end - state.written), to: &state.lines)
                guard next > state.written else { break }
                state.written = next
                source.releaseRecords(through: next)
                if state.lines.count >= Self.bufferSize { flush(&state.lines) }
                // Between batches, a stop ends the thread's drain: ``finish(upTo:)`` writes the rest.
                if end == .max && stopping.load(ordering: .sequentiallyConsistent) { break }
            }
            flush(&state.lines)
        }
    }

    private func flush(_ lines: inout RecordLineBuffer) {
        guard lines.count > 0 else { return }
        lines.withUnsafeBytes { _ = LineWriter.write(bytes: $0, to: descriptor) }
        lines.removeAll()
    }
}

/// A gateway whose records a ``RecordWriter`` writes: ``MockGateway`` and ``HTTP2MockGateway``.
protocol RecordSource: Sendable {
    /// Waits until `count` records were accepted, or `timeout` passes, or the gateway stops.
    func waitForRecords(count: Int, timeout: Duration) -> Bool
    /// Appends the record file's lines of at most `limit` records from position `start` on;
    /// the position after the last one appended.
    func appendRecordLines(from start: Int, limit: Int, to lines: inout RecordLineBuffer) -> Int
    /// Frees the records up to the one with `sequence`.
    func releaseRecords(through sequence: Int)
}

extension MockGateway: RecordSource {}

extension HTTP2MockGateway: RecordSource {}

/// The HTTP/2 gateway's accepted broadcasts, as a ``RecordWriter`` takes them: their own
/// positions (1, 2, … among broadcasts), their own `"kind":"broadcast"` lines.
struct BroadcastRecords: RecordSource {
    let gateway: HTTP2MockGateway

    func waitForRecords(count: Int, timeout: Duration) -> Bool {
        gateway.waitForBroadcasts(count: count, timeout: timeout)
    }

    func appendRecordLines(from start: Int, limit: Int, to lines: inout RecordLineBuffer) -> Int {
        gateway.appendBroadcastLines(from: start, limit: limit, to: &lines)
    }

    func releaseRecords(through sequence: Int) {
        gateway.releaseBroadcasts(through: sequence)
    }
}
