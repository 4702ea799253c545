import APNSupport
import Dispatch
import Foundation
import APNMockGateway
import Synchronization

/// `apn mock-gateway`'s log of the connections its gateways refused or dropped on their
/// own (over the connection cap, idle, failed handshakes …): one JSON line on standard
/// error per kind at most once a second, `{"time":…,"event":"connections_refused",
/// "kind":"over_cap","count":N}`, counting what happened since that kind's previous line
/// (``RefusalLogLimiter``). At the end, one last line per kind for what is not logged yet,
/// so the lines of a kind add up to the summary's count. Nothing in it names a client.
///
/// A thread looks at the gateways' counters four times a second: they are cheap to read,
/// and the limiter, not the look, decides what is written.
final class RefusalLog: Sendable {
    /// How often the counters are looked at.
    static let lookInterval: Duration = .milliseconds(250)

    private let totals: @Sendable () -> [ConnectionRefusal: Int]
    private let limiter = Lock(RefusalLogLimiter())
    private let stopping = Atomic<Bool>(false)
    /// Raised to end the thread's wait early: at the stop.
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    /// A log of what `totals` counts (summed over the gateways).
    init(totals: @escaping @Sendable () -> [ConnectionRefusal: Int]) {
        self.totals = totals
    }

    /// Starts the looking thread.
    func start() {
        CommandThread.start("apn-refusals") { [self] in
            while !stopping.load(ordering: .sequentiallyConsistent) {
                let counted = totals()
                write(limiter.withLock { $0.lines(totals: counted, at: .now) })
                _ = wake.wait(timeout: .now() + .nanoseconds(Self.lookInterval.wholeNanoseconds))
            }
            finished.signal()
        }
    }

    /// Ends the thread, then writes the last lines: call once the gateways stopped, so
    /// the counts are final.
    func finish() {
        stopping.store(true, ordering: .sequentiallyConsistent)
        wake.signal()
        finished.wait()
        let counted = totals()
        write(limiter.withLock { $0.remaining(totals: counted) })
    }

    private func write(_ lines: [(kind: ConnectionRefusal, count: Int)]) {
        for line in lines {
            LineWriter.write(
                JSONValue.object([
                    ("time", .string(FeedbackCommand.isoDate(Date()))), ("event", .string("connections_refused")),
                    ("kind", .string(line.kind.rawValue)), ("count", .integer(line.count)),
                ]).text, to: STDERR_FILENO)
        }
    }
}
