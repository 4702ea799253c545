import APN
import APNFeedbackStore
import Foundation

/// `apn-bench feedback-store`: the token store on a file in a temporary folder. Bulk
/// registration of `--operations` tokens (1,000,000) in one transaction, then applying as
/// many feedback tuples against them in batches of 10,000 (one transaction each, as the
/// service commits each batch read): half at or after the registration (deactivated),
/// a quarter before it (kept), a quarter for unknown tokens. Each round starts from an
/// empty file.
enum FeedbackStoreBenchmark {
    static func run(_ arguments: [String]) throws {
        let options = try BenchOptions(arguments, defaultOperations: 1_000_000)
        let count = options.operations
        print("feedback-store: \(count) tokens registered in one transaction, then \(count) feedback tuples applied "
            + "in batches of 10,000; \(options.rounds) round(s)")
        let devices = (0..<count).map(device)
        let registrations = devices.map { TokenStore.Registration(device: $0, topic: "com.example.app", at: 1_000_000) }
        let feedback = (0..<count).map { n -> Feedback.Entry in
            switch n % 4 {
            case 0, 1: Feedback.Entry(unixTime: 1_000_500, device: devices[n])   // deactivated
            case 2: Feedback.Entry(unixTime: 999_000, device: devices[n])         // kept
            default: Feedback.Entry(unixTime: 1_000_500, device: device(count + n)) // unknown
            }
        }
        var registering: [Double] = []
        var applying: [Double] = []
        var summary = FeedbackApplication()
        let clock = ContinuousClock()
        for _ in 0..<options.rounds {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("apn-bench-store-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let store = try TokenStore(path: folder.appendingPathComponent("tokens.sqlite").path)
            registering.append(clock.measure { _ = try? store.register(registrations) }.inSeconds)
            summary = FeedbackApplication()
            applying.append(clock.measure {
                for start in stride(from: 0, to: count, by: 10_000) {
                    guard let batch = try? store.apply(Array(feedback[start..<min(start + 10_000, count)]), readAt: 2_000_000)
                    else { return }
                    summary.read += batch.read
                    summary.deactivated += batch.deactivated
                    summary.kept += batch.kept
                    summary.unknown += batch.unknown
                }
            }.inSeconds)
            guard summary.read == count else { throw BenchUsageError(description: "feedback-store: a batch failed") }
        }
        report("bulk registration", operations: count, seconds: registering, unit: "tokens/s")
        report("feedback applied", operations: count, seconds: applying, unit: "tuples/s")
        print("  last round: \(summary)")
    }

    static func device(_ n: Int) -> Device {
        var token = [UInt8](repeating: 0x5C, count: 32)
        withUnsafeBytes(of: UInt64(n).bigEndian) { token.replaceSubrange(24..<32, with: $0) }
        return try! Device(token: token)
    }
}
