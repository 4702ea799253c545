import APN
import Foundation
import APNMockGateway

/// `apn-bench feedback`: one `Feedback.read()` of N queued tuples (32-byte tokens) from an
/// in-process MockGateway over mutual TLS on loopback: tuples/s decoded, from the start of
/// the read (connect and handshake included) until the last entry is in hand.
enum FeedbackBenchmark {
    static func run(_ arguments: [String]) throws {
        let options = try BenchOptions(arguments, defaultOperations: 1_000_000)
        let count = options.operations
        print("feedback: one read of \(count) tuples (38 bytes each) over TLS loopback, "
            + "\(options.rounds) rounds (+1 warm-up), fresh gateway each round")
        var seconds: [Double] = []
        for round in 0...options.rounds {
            let elapsed = try measureRound(count: count)
            if round > 0 { seconds.append(elapsed) }
        }
        report("tuples decoded", operations: count, seconds: seconds, unit: "tuples/s", bytesPerOperation: 38)
    }

    static func measureRound(count: Int) throws -> Double {
        let gateway = try MockGateway()
        defer { _ = gateway.stop() }
        try gateway.start()
        for n in 0..<count {
            var token = [UInt8](repeating: 0xCD, count: 32)
            withUnsafeBytes(of: UInt64(n).bigEndian) { token.replaceSubrange(24..<32, with: $0) }
            try gateway.queueFeedback(time: UInt32(1_700_000_000 + n % 86_400), token: token)
        }
        let credentials = try MockCredentials(gateway)
        var settings = Feedback.Options()
        settings.address = "127.0.0.1"
        settings.port = gateway.feedbackPort
        settings.cert = credentials.cert
        settings.key = credentials.key
        settings.ca = credentials.ca
        settings.interval = nil  // only the read: no visit of its own at creation
        let feedback = Feedback(options: settings)

        let clock = ContinuousClock()
        let start = clock.now
        let read = blocking { (try? await feedback.read().count) ?? -1 }
        let elapsed = clock.now - start
        guard read == count else {
            throw BenchUsageError(description: "read \(read) of \(count) tuples")
        }
        return elapsed.inSeconds
    }
}
