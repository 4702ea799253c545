import APNSupport
import APN
import APNTLS
import Foundation
import APNMockGateway
import Synchronization
import APNTestSupport

/// `apn-bench chaos`: the delivery guarantee measured under the faults of a remote gateway.
/// A million notifications (`--operations`) go through ``Connection`` into an in-process
/// MockGateway that answers `--latency-ms` away (5 by default, each way), rejects one
/// notification in 1,000, closes a connection without a word after every 100,000 accepted
/// and resets one after every 250,000. Every outcome is checked against what the gateway
/// recorded: accepted ⇔ recorded once (at most twice when marked possibly duplicated),
/// rejected ⇔ never recorded; unknown fates are counted. It prints the throughput beside
/// `send`'s (precompiled, no faults) measured in the same round, and fails when a
/// notification was lost or delivered twice without a mark.
///
/// `--connections N` sockets (1), `--confirm N` rolling confirmation (off), `--report 1`
/// for the `reportUnconfirmed` silent-close policy (resend, the default, otherwise),
/// `--settle-ms MS` for the settle window (100 ms by default: a connection the gateway
/// drops that soon after the handshake backs off 1 s, which the periodic drops here often
/// are, connections being short-lived between rejections).
enum ChaosBenchmark {
    static func run(_ arguments: [String]) throws {
        let options = try BenchOptions(
            arguments, defaultOperations: 1_000_000,
            extra: ["--latency-ms", "--connections", "--confirm", "--report", "--settle-ms"])
        let count = options.operations
        let latency = options.values["--latency-ms"] ?? 5
        let connections = max(1, options.values["--connections"] ?? 1)
        let confirmation = options.values["--confirm"].flatMap { $0 > 0 ? $0 : nil }
        let policy: SilentClosePolicy = (options.values["--report"] ?? 0) > 0 ? .reportUnconfirmed : .resend
        let settle = options.values["--settle-ms"]
        print("chaos: \(count) notifications through Connection, \(latency) ms away each way, 1 in 1,000 rejected, "
            + "a silent close after every 100,000 accepted, a reset after every 250,000; \(connections) socket(s), "
            + "\(policy), rolling confirmation \(confirmation.map { "every \($0)" } ?? "off"); \(options.rounds) round(s)")
        let shared = SendBenchmark.precompiled()
        let devices = (0..<count).map { SendBenchmark.makeDevice($0) }
        let batches = stride(from: 0, to: count, by: 1_000).map { $0..<min($0 + 1_000, count) }
        var failed = false
        for round in 1...options.rounds {
            let baseline = try SendBenchmark.round(
                devices, payload: .shared(shared, batches: batches.map { Array(devices[$0]) }))
            let result = try chaosRound(
                devices: devices, batches: batches, note: shared, latency: .milliseconds(latency),
                connections: connections, confirmation: confirmation, policy: policy, settle: settle)
            let rate = Double(count) / result.seconds
            let sendRate = Double(count) / baseline.seconds
            print("round \(round): \(format(rate)) notifications/s under chaos, send \(format(sendRate))/s on the same "
                + "round (\(String(format: "%.0f", 100 * rate / sendRate)) %); \(result.summary); peak resident "
                + "\(result.peakResidentBytes.map { "\($0 >> 20) MB" } ?? "unknown") during the chaos")
            failed = failed || !result.problems.isEmpty
            for problem in result.problems.prefix(10) { print("  PROBLEM: \(problem)") }
        }
        if failed { throw BenchUsageError(description: "chaos: notifications lost or delivered twice unmarked") }
    }

    /// What one chaos round measured and found.
    struct RoundResult {
        var seconds: Double
        /// The process's peak resident memory during the chaos part (the devices made
        /// before it included), when Linux could reset and report it.
        var peakResidentBytes: Int?
        var summary: String
        var problems: [String]
    }

    static func chaosRound(
        devices: [Device], batches: [Range<Int>], note: APN.Notification, latency: Duration, connections: Int,
        confirmation: Int?, policy: SilentClosePolicy, settle: Int?
    ) throws -> RoundResult {
        let count = devices.count
        var faults = MockGateway.Faults()
        faults.latency = latency
        // One in each thousand, at a place that varies (the same each round): rejections at a
        // fixed stride would all fall in the same part of each batch, so on the same socket.
        var random = SplitMix64(seed: 1_000)
        for block in stride(from: 0, to: count, by: 1_000) {
            faults.rejectToken(devices[min(count - 1, block + Int.random(in: 0..<1_000, using: &random))].token)
        }
        faults.closeEvery = 100_000
        faults.resetEvery = 250_000
        var configuration = MockGateway.Configuration(faults: faults)
        // Every outcome is checked against the record, duplicates included (> 1,000,000):
        // a tally counts them as they come and releases them, so the gateway holds at most
        // this many (it stops reading when it does: backpressure, never a loss). Keeping
        // them all and copying them out at the end cost ~300 MB of the run's peak.
        configuration.recordRetention = RecordRetention(limit: 262_144, whenFull: .pauseConnections)
        let gateway = try MockGateway(configuration: configuration)
        defer { _ = gateway.stop() }
        try gateway.start()
        let tally = RecordTally(gateway: gateway, count: count)
        var settings = try SendBenchmark.options(for: gateway)
        settings.maxConnections = connections
        settings.confirmationInterval = confirmation
        settings.silentClosePolicy = policy
        if let settle { settings.settleWindow = .milliseconds(settle) }
        let connection = Connection(options: settings)
        let outcomes = OutcomeTable(count: count, batchSize: batches.first?.count ?? 1)
        let peakReset = PeakResident.reset()

        let clock = ContinuousClock()
        let start = clock.now
        for batch in batches {
            // At most `batchesInFlight` batches without every outcome, as an app server
            // feeds a connection: a million queued at once would hold ~170 MB for the queue.
            outcomes.waitForRoom()
            let first = batch.lowerBound
            connection.push(note, to: Array(devices[batch])) { index, outcome in outcomes.record(first + index, outcome) }
        }
        // A confirmed flush returns once everything pushed before it has its outcome.
        let flushed = blocking { await connection.flush() }
        let elapsed = clock.now - start
        var report = SendBenchmark.blockingShutdown(connection)
        report.resent += flushed.resent

        let check = outcomes.check(against: tally.finish())
        let summary = "accepted \(check.accepted) (possibly duplicated \(check.possiblyDuplicated), recorded twice "
            + "\(check.recordedTwice)), rejected \(check.rejected), failed \(check.failed), unknown fate \(check.unknown)"
            + (check.unknownReasons.isEmpty ? "" : " (" + check.unknownReasons.sorted { $0.value > $1.value }
                .map { "\($0.value) \($0.key)" }.joined(separator: ", ") + ")") + "; "
            + "lost \(check.lost), unmarked duplicates \(check.unmarkedDuplicates); resent \(flushed.resent), "
            + "gateway connections \(gateway.connectionCount)"
        return RoundResult(
            seconds: elapsed.inSeconds, peakResidentBytes: peakReset ? PeakResident.bytes() : nil,
            summary: summary, problems: check.problems)
    }

    /// glibc's `malloc_trim`, which the Glibc module does not import (it is in malloc.h).
    @_silgen_name("malloc_trim")
    static func glibcMallocTrim(_ pad: Int) -> Int32

    /// The process's peak resident memory (`VmHWM`), which Linux resets on request (writing
    /// 5 to /proc/self/clear_refs), so one part of a run can be measured on its own.
    enum PeakResident {
        /// Returns freed memory to the system (`malloc_trim`: what earlier rounds left in
        /// glibc's free lists is not this part's), then resets the peak to the current
        /// resident memory; false where Linux refuses.
        static func reset() -> Bool {
            _ = glibcMallocTrim(0)
            return (try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)) != nil
        }

        /// `VmHWM` in bytes, or nil.
        static func bytes() -> Int? {
            guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
                let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
                let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
            else { return nil }
            return kilobytes << 10
        }
    }

    /// How often the gateway recorded each notification, counted on a thread of its own as
    /// records come and released at once, so the gateway never holds many.
    final class RecordTally: Sendable {
        private let gateway: MockGateway
        private let counts: Lock<[UInt8]>
        private let stopping = Atomic<Bool>(false)
        private let done = DispatchSemaphore(value: 0)

        init(gateway: MockGateway, count: Int) {
            self.gateway = gateway
            counts = Lock([UInt8](repeating: 0, count: count))
            Thread.detachNewThread { [self] in
                var seen = 0
                while true {
                    let batch = gateway.records(from: seen, limit: 65_536)
                    if batch.isEmpty {
                        // Checked before the last look: records accepted before the stop are read.
                        if stopping.load(ordering: .acquiring) && gateway.records(from: seen, limit: 1).isEmpty { break }
                        _ = gateway.waitForRecords(count: seen + 1, timeout: .milliseconds(20))
                        continue
                    }
                    counts.withLock { counts in
                        for record in batch {
                            let n = SendBenchmark.number(of: record.token)
                            if n < counts.count, counts[n] < .max { counts[n] += 1 }
                        }
                    }
                    seen = batch[batch.count - 1].sequence
                    gateway.releaseRecords(through: seen)
                }
                done.signal()
            }
        }

        /// The counts, once every record the gateway has accepted so far was read.
        func finish() -> [UInt8] {
            stopping.store(true, ordering: .releasing)
            done.wait()
            return counts.withLock { $0 }
        }
    }

    /// Every notification's outcome, by number, written from the callback queue.
    final class OutcomeTable: Sendable {
        enum Kind: UInt8 {
            case none, accepted, acceptedPossiblyDuplicated, rejected, failed, unknown
        }

        private let state: Lock<(kinds: [Kind], repeated: Int, unknownReasons: [UnknownFateReason: Int], waiting: [Int])>
        private let batchSize: Int
        /// One permit per batch that may be pushed before earlier ones have all their outcomes.
        private let room: DispatchSemaphore
        /// Batches pushed and not settled at most: 100 of 1,000, a window of 100,000.
        static let batchesInFlight = 100

        init(count: Int, batchSize: Int) {
            self.batchSize = max(1, batchSize)
            let batches = (count + self.batchSize - 1) / self.batchSize
            var waiting = [Int](repeating: self.batchSize, count: batches)
            if count % self.batchSize != 0 { waiting[batches - 1] = count % self.batchSize }
            state = Lock((kinds: [Kind](repeating: .none, count: count), repeated: 0, unknownReasons: [:], waiting: waiting))
            room = DispatchSemaphore(value: Self.batchesInFlight)
        }

        /// Waits until fewer than ``batchesInFlight`` batches wait for outcomes.
        func waitForRoom() {
            room.wait()
        }

        func record(_ n: Int, _ outcome: NotificationOutcome) {
            let kind: Kind = switch outcome {
            case .accepted(let acceptance): acceptance.possiblyDuplicated ? .acceptedPossiblyDuplicated : .accepted
            case .rejected: .rejected
            case .failed: .failed
            case .unknownFate: .unknown
            }
            let settledBatch = state.withLock { state in
                var settled = false
                if state.kinds[n] != .none {
                    state.repeated += 1
                } else {
                    state.waiting[n / batchSize] -= 1
                    settled = state.waiting[n / batchSize] == 0
                }
                state.kinds[n] = kind
                if case .unknownFate(let reason) = outcome { state.unknownReasons[reason, default: 0] += 1 }
                return settled
            }
            if settledBatch { room.signal() }
        }

        struct Check {
            var accepted = 0, possiblyDuplicated = 0, recordedTwice = 0, rejected = 0, failed = 0, unknown = 0
            var lost = 0, unmarkedDuplicates = 0
            var unknownReasons: [UnknownFateReason: Int] = [:]
            var problems: [String] = []
        }

        /// Each outcome against how often the gateway recorded the notification.
        func check(against recorded: [UInt8]) -> Check {
            state.withLock { state in
                var check = Check()
                check.unknownReasons = state.unknownReasons
                if state.repeated > 0 { check.problems.append("\(state.repeated) second outcomes") }
                for (n, kind) in state.kinds.enumerated() {
                    let times = recorded[n]
                    switch kind {
                    case .none:
                        check.lost += 1
                        check.problems.append("\(n): no outcome")
                    case .accepted, .acceptedPossiblyDuplicated:
                        check.accepted += 1
                        if kind == .acceptedPossiblyDuplicated { check.possiblyDuplicated += 1 }
                        if times > 1 { check.recordedTwice += 1 }
                        if times == 0 {
                            check.lost += 1
                            check.problems.append("\(n): accepted, never recorded")
                        } else if times > 1, kind == .accepted {
                            check.unmarkedDuplicates += 1
                            check.problems.append("\(n): recorded \(times) times, not marked")
                        } else if times > 2 {
                            check.problems.append("\(n): recorded \(times) times")
                        }
                    case .rejected, .failed:
                        if kind == .rejected { check.rejected += 1 } else { check.failed += 1 }
                        if times > 0 { check.problems.append("\(n): \(kind), yet recorded") }
                    case .unknown:
                        check.unknown += 1
                    }
                }
                return check
            }
        }
    }
}
