import APN
@testable import APNFeedbackService
import APNFeedbackStore
import APNMockGateway
import APNTestSupport
import APNTestTraits
import Foundation
import Synchronization
import Testing

/// `FeedbackService` embedded, as `apn feedback-service` runs it: against the mock's feedback
/// listener, into a SQLite store in a temporary folder, events collected.
@Suite("FeedbackService: the feedback service as a library", .threadPerTest)
struct FeedbackServiceTests {
    /// A mock serving `count` tuples, a folder for the store, and the collected events.
    final class Fixture: Sendable {
        let mock: MockGateway
        let folder: String
        let events = Mutex<[FeedbackService.Event]>([])

        init(tuples count: Int) throws {
            mock = try MockGateway(configuration: MockGateway.Configuration())
            try mock.start()
            for n in 0..<count { try mock.queueFeedback(time: Self.time(n), token: Self.token(n)) }
            folder = NSTemporaryDirectory() + "feedback-service-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }

        deinit {
            _ = mock.stop()
            try? FileManager.default.removeItem(atPath: folder)
        }

        static func time(_ n: Int) -> UInt32 { UInt32(1_700_000_000 + n) }
        static func token(_ n: Int) -> [UInt8] { (0..<32).map { UInt8(truncatingIfNeeded: n &* 31 &+ $0) } }

        var store: String { folder + "/tokens.sqlite" }

        func configuration(interval: Duration? = nil, batchSize: Int = 1000) throws -> FeedbackService.Configuration {
            var configuration = FeedbackService.Configuration(store: store, feedback: try mock.feedbackOptions())
            configuration.interval = interval
            configuration.batchSize = batchSize
            configuration.events = { [self] event in events.withLock { $0.append(event) } }
            return configuration
        }

        /// Every tuple the store holds as feedback, as "hex:time".
        func stored() throws -> Set<String> {
            var tuples: Set<String> = []
            try TokenStore(path: store).feedback { tuples.insert("\($0.device.hexString):\($0.time)") }
            return tuples
        }

        /// The tuples the mock served, as "hex:time".
        static func served(_ count: Int) -> Set<String> {
            Set((0..<count).map { n in "\(Device(unvalidatedTestToken: token(n)).hexString):\(time(n))" })
        }
    }

    @Test("once: every tuple committed, the lock taken, one visit told; a second run on the same store is refused while the first holds it")
    func onceCommitsEverything() throws {
        let fixture = try Fixture(tuples: 2_500)
        let service = try FeedbackService(configuration: try fixture.configuration(batchSize: 1000))
        #expect(service.run() == .finished)
        #expect(try fixture.stored() == Fixture.served(2_500))
        let events = fixture.events.withLock { $0 }
        guard case .leaseTaken(_, afterWaiting: false)? = events.first else {
            Issue.record("first event: \(String(describing: events.first))")
            return
        }
        let batches = events.compactMap { event -> Int? in
            if case .batchCommitted(let batch, _) = event { return batch.read }
            return nil
        }
        #expect(batches.reduce(0, +) == 2_500 && batches.allSatisfy { $0 <= 1000 })
        guard case .visited(let report, stopped: false)? = events.last else {
            Issue.record("last event: \(String(describing: events.last))")
            return
        }
        #expect(report.applied.read == 2_500 && report.applied.unknown == 2_500)
    }

    @Test("two services on one SQLite store: the second ends at once with lockHeld, visiting nothing")
    func secondServiceRefused() throws {
        let fixture = try Fixture(tuples: 1)
        let holder = try FeedbackPollLock(store: fixture.store)
        let service = try FeedbackService(configuration: try fixture.configuration())
        let ending = withExtendedLifetime(holder) { service.run() }
        guard case .lockHeld(let message) = ending else {
            Issue.record("ending: \(ending)")
            return
        }
        #expect(message.contains("another apn feedback-service"))
        #expect(fixture.events.withLock { $0.isEmpty })
        #expect(fixture.mock.feedbackConnectionCount == 0)
    }

    @Test("commits fail after two batches: the rest of the visit is read, told and in the recovery file; store + file = every tuple once")
    func failedCommitKeepsTheRest() throws {
        let fixture = try Fixture(tuples: 5_000)
        let service = try FeedbackService(configuration: try fixture.configuration(batchSize: 1000)) {
            location throws(StoreError) in
            TokenStore.failingCommits(try TokenStore(location: location), after: 2)
        }
        let ending = service.run()
        guard case .notCommitted(let count, let file?) = ending else {
            Issue.record("ending: \(ending)")
            return
        }
        let stored = try fixture.stored()
        #expect(stored.count == 5_000 - count && count >= 3_000)
        let lines = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == count)
        let recovered = Set(lines.map { line -> String in
            let object = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] ?? [:]
            return "\(object["token"] as? String ?? "?"):\(object["time"] as? Int ?? -1)"
        })
        #expect(recovered.count == count && recovered.isDisjoint(with: stored))
        #expect(recovered.union(stored) == Fixture.served(5_000))
        let told = fixture.events.withLock { events in
            events.reduce(0) { sum, event in
                if case .notCommitted(let entries) = event { return sum + entries.count }
                return sum
            }
        }
        #expect(told == count)
        let attributes = try FileManager.default.attributesOfItem(atPath: file)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
    }

    @Test("the room checked before a visit follows the batch size unless set: 8 KiB a tuple, 1 MiB to 64 MiB")
    func roomFollowsTheBatchSize() {
        var configuration = FeedbackService.Configuration(store: "unused", feedback: Feedback.Options())
        #expect(configuration.freeBytesChecked == 1000 * 8192)
        configuration.batchSize = 10
        #expect(configuration.freeBytesChecked == 1 << 20)
        configuration.batchSize = 100_000
        #expect(configuration.freeBytesChecked == 64 << 20)
        configuration.minimumFreeBytes = 0
        #expect(configuration.freeBytesChecked == 0)
    }

    @Test("stop() during the wait between visits ends the run with .stopped, after one visit")
    func stopBetweenVisits() throws {
        let fixture = try Fixture(tuples: 10)
        let box = Mutex<FeedbackService?>(nil)
        var configuration = try fixture.configuration(interval: .seconds(3600))
        let collect = configuration.events
        configuration.events = { event in
            collect(event)
            if case .visited = event { box.withLock { $0?.stop() } }
        }
        let service = try FeedbackService(configuration: configuration)
        box.withLock { $0 = service }
        #expect(service.run() == .stopped)
        #expect(try fixture.stored().count == 10)
    }
}

extension Device {
    /// A device for a token the test made (32 bytes, never invalid).
    init(unvalidatedTestToken token: [UInt8]) {
        self = try! Device(token: token)
    }
}
