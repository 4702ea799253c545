import APN
import APNFeedbackStore
import Foundation
import APNTestSupport

/// `apn-bench feedback-store [--store postgresql://…]`: the token store on a file in a
/// temporary folder and, with `--store`, in a fresh schema of that PostgreSQL database
/// (created and dropped each round). Bulk registration of `--operations` tokens (1,000,000)
/// in one transaction, then applying as many feedback tuples against them in batches of
/// 10,000 (one transaction each, as the service commits each batch read): half at or after
/// the registration (deactivated), a quarter before it (kept), a quarter for unknown tokens;
/// then reading every active token (a send's list). Each round starts from an empty store.
enum FeedbackStoreBenchmark {
    static func run(_ arguments: [String]) throws {
        let options = try BenchOptions(arguments, defaultOperations: 1_000_000, pathOptions: ["--store"])
        let count = options.operations
        print("feedback-store: \(count) tokens registered in one transaction, then \(count) feedback tuples applied "
            + "in batches of 10,000, then the active tokens read; \(options.rounds) round(s)")
        let devices = (0..<count).map(device)
        let registrations = devices.map { TokenStore.Registration(device: $0, topic: "com.example.app", at: 1_000_000) }
        let feedback = (0..<count).map { n -> Feedback.Entry in
            switch n % 4 {
            case 0, 1: Feedback.Entry(unixTime: 1_000_500, device: devices[n])   // deactivated
            case 2: Feedback.Entry(unixTime: 999_000, device: devices[n])         // kept
            default: Feedback.Entry(unixTime: 1_000_500, device: device(count + n)) // unknown
            }
        }
        let workload = Workload(registrations: registrations, feedback: feedback)
        try measure("sqlite", workload, rounds: options.rounds) {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("apn-bench-store-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            return (folder.appendingPathComponent("tokens.sqlite").path, { try? FileManager.default.removeItem(at: folder) })
        }
        if let server = options.paths["--store"] {
            guard TokenStore.isPostgreSQL(server) else {
                throw BenchUsageError(description: "feedback-store: --store takes a postgresql:// URL (SQLite always runs)")
            }
            try measure("postgresql", workload, rounds: options.rounds) {
                let schema = "apn_bench_\(UInt32.random(in: 0...UInt32.max))"
                return (try PostgresAdmin.location(schema: schema, server: server),
                        { PostgresAdmin.drop(schema: schema, server: server) })
            }
        }
    }

    struct Workload {
        var registrations: [TokenStore.Registration]
        var feedback: [Feedback.Entry]
    }

    /// Runs the rounds on stores `fresh` makes (a location and how to remove it).
    private static func measure(
        _ backend: String, _ workload: Workload, rounds: Int, fresh: () throws -> (String, () -> Void)
    ) throws {
        let count = workload.registrations.count
        var registering: [Double] = []
        var applying: [Double] = []
        var reading: [Double] = []
        var summary = FeedbackApplication()
        var active = 0
        let clock = ContinuousClock()
        for _ in 0..<rounds {
            let (location, remove) = try fresh()
            defer { remove() }
            let store = try TokenStore(location: location)
            var failure: (any Error)?
            registering.append(clock.measure {
                do { try store.register(workload.registrations) } catch { failure = error }
            }.inSeconds)
            summary = FeedbackApplication()
            applying.append(clock.measure {
                for start in stride(from: 0, to: count, by: 10_000) where failure == nil {
                    do {
                        let batch = try store.apply(Array(workload.feedback[start..<min(start + 10_000, count)]), readAt: 2_000_000)
                        summary.read += batch.read
                        summary.deactivated += batch.deactivated
                        summary.kept += batch.kept
                        summary.unknown += batch.unknown
                    } catch { failure = error }
                }
            }.inSeconds)
            active = 0
            reading.append(clock.measure {
                do { try store.list(.active) { _ in active += 1 } } catch { failure = error }
            }.inSeconds)
            if let failure { throw BenchUsageError(description: "feedback-store (\(backend)): \(failure)") }
            guard summary.read == count else { throw BenchUsageError(description: "feedback-store: a batch failed") }
        }
        report("\(backend): bulk registration", operations: count, seconds: registering, unit: "tokens/s")
        report("\(backend): feedback applied", operations: count, seconds: applying, unit: "tuples/s")
        report("\(backend): active tokens read", operations: active, seconds: reading, unit: "tokens/s")
        print("  \(backend), last round: \(summary), \(active) active")
    }

    static func device(_ n: Int) -> Device {
        var token = [UInt8](repeating: 0x5C, count: 32)
        withUnsafeBytes(of: UInt64(n).bigEndian) { token.replaceSubrange(24..<32, with: $0) }
        return try! Device(token: token)
    }
}
