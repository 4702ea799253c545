import APN
import APNFeedbackStore
import APNTLS
import Dispatch
import Foundation
import APNMockGateway
import Synchronization
import Testing
import APNTestSupport
import APNTestTraits

/// A provider's 410s into the token store (issue #26, row 10): `HTTP2MockGateway` answers
/// `Unregistered` with a timestamp, ``UnregisteredTokenRecording`` commits each by the
/// feedback service's rule, off the I/O thread, and `shutdown()` returns once all are in the
/// store or kept as not recorded.
@Suite("Provider: 410s into the token store", .timeLimit(.minutes(5)), .threadPerTest)
struct ProviderUnregisteredTests {
    typealias Tests = TokenStoreTests

    /// Apple's timestamp for every scripted 410: 1,700,000,000.250 s, so the tuple's time is
    /// 1,700,000,000 (milliseconds divided by 1,000).
    static let since = Date(timeIntervalSince1970: 1_700_000_000.250)
    static let sinceSeconds: Int64 = 1_700_000_000

    /// An HTTP/2 mock answering 410 for `unregistered`, and certificate options that reach it.
    struct Gateway {
        let gateway: HTTP2MockGateway
        var options: Provider.Options

        init(unregistered: [Device]) throws {
            var configuration = HTTP2MockGateway.Configuration()
            for device in unregistered { configuration.faults.unregisterToken(device.hexString, since: ProviderUnregisteredTests.since) }
            gateway = try HTTP2MockGateway(configuration: configuration)
            try gateway.start()
            let client = try gateway.certificateAuthority.issueClientCertificate(topic: "com.example.app")
            options = Provider.Options()
            options.address = "127.0.0.1"
            options.port = gateway.port
            options.ca = [.data(Array(try gateway.certificateAuthority.certificate.pem().utf8))]
            options.cert = .data(Array(try client.certificate.pem().utf8))
            options.key = .data(Array(try client.privateKey.pem().utf8))
            options.requestTimeout = .seconds(60)
        }
    }

    @Test("each 410 deactivates its token at Apple's timestamp; a registration after it keeps the token; close waits for the commit")
    func ruleOfTheFeedbackService() async throws {
        let folder = try Tests.Folder()
        // Not folder.store(): sent to the recording, it must share nothing with the folder.
        let writer = try TokenStore(path: folder.path)
        try writer.register(Tests.device(1), at: Self.sinceSeconds - 100)  // registered before: deactivated
        try writer.register(Tests.device(2), at: Self.sinceSeconds + 100)  // registered again after: kept
        try writer.register(Tests.device(3), at: Self.sinceSeconds)  // at the time itself: deactivated
        try writer.register(Tests.device(4), at: Self.sinceSeconds - 100)  // accepted: untouched
        var fixture = try Gateway(unregistered: [1, 2, 3].map(Tests.device))
        defer { _ = fixture.gateway.stop() }
        let recording = UnregisteredTokenRecording(writer)
        fixture.options.unregisteredTokens = recording
        let provider = Provider(options: fixture.options)
        let responses = await provider.send(PushNotification().setAlertText("hi"), to: (1...4).map(Tests.device))
        #expect(responses.map(\.status) == [410, 410, 410, 200])
        await provider.shutdown()

        // Read with a connection of its own, right after close: nothing else waited for.
        let reader = try folder.store()
        let first = try #require(try reader.lookup(Tests.device(1)))
        #expect(!first.isActive && first.deactivatedAt == Self.sinceSeconds && first.lastFeedbackAt == Self.sinceSeconds)
        let second = try #require(try reader.lookup(Tests.device(2)))
        #expect(second.isActive && second.deactivatedAt == nil && second.lastFeedbackAt == Self.sinceSeconds)
        #expect(try reader.lookup(Tests.device(3))?.isActive == false)
        #expect(try reader.lookup(Tests.device(4))?.isActive == true)
        var outcomes: [Device: FeedbackRecord.Outcome] = [:]
        try reader.feedback { outcomes[$0.device] = $0.outcome }
        #expect(outcomes == [Tests.device(1): .deactivated, Tests.device(2): .kept, Tests.device(3): .deactivated])
        let report = recording.report
        #expect(report.recorded == 3 && report.notRecordedCount == 0 && report.error == nil)
    }

    @Test("commits fail after the first batch: every 410 is in the store or in notRecorded, once, and the error says why")
    func storeFailureLosesNothing() async throws {
        let folder = try Tests.Folder()
        // Not folder.store(): sent to the recording, it must share nothing with the folder.
        let registry = try TokenStore(path: folder.path)
        let devices = (1...40).map(Tests.device)
        for device in devices { try registry.register(device, at: Self.sinceSeconds - 100) }
        let writer = TokenStore.failingCommits(registry, after: 1)
        var fixture = try Gateway(unregistered: devices)
        defer { _ = fixture.gateway.stop() }
        let recording = UnregisteredTokenRecording(writer, batchSize: 5)
        fixture.options.unregisteredTokens = recording
        let provider = Provider(options: fixture.options)
        let responses = await provider.send(PushNotification().setAlertText("hi"), to: devices)
        #expect(responses.allSatisfy { $0.status == 410 })
        await provider.shutdown()

        let report = recording.report
        let error = try #require(report.error as? StoreError)
        #expect(error.kind == .full)
        // One commit succeeds: the first batch, of however many 410s had come (at most 5).
        #expect((1...5).contains(report.recorded), "\(report.recorded)")
        #expect(report.recorded + report.notRecordedCount == 40 && report.notRecorded.count == report.notRecordedCount)
        #expect(report.notRecorded.allSatisfy { $0.timestamp == Self.since && $0.reason == .unregistered })
        let reader = try folder.store()
        var stored: [Device] = []
        try reader.list(.inactive) { stored.append($0.device) }
        #expect(stored.count == report.recorded)
        let kept = report.notRecorded.map(\.device)
        #expect(Set(stored).isDisjoint(with: kept))
        #expect(Set(stored).union(kept) == Set(devices), "nothing lost, nothing twice")
    }

    /// A recorder that blocks its first call until released, and notes every batch.
    final class GatedRecorder: UnregisteredTokenRecorder {
        final class Log: Sendable {
            let batches = Mutex<[[UnregisteredToken]]>([])
            let gate = DispatchSemaphore(value: 0)
        }

        let log: Log

        init(_ log: Log) {
            self.log = log
        }

        func record(_ tokens: [UnregisteredToken]) throws {
            let first = log.batches.withLock { batches in
                batches.append(tokens)
                return batches.count == 1
            }
            if first { log.gate.wait() }
        }
    }

    @Test("a recorder that blocks never holds the provider up: every answer arrives meanwhile; what waited is batched")
    func recorderOffTheIOThread() async throws {
        let devices = (1...200).map(Tests.device)
        var fixture = try Gateway(unregistered: devices)
        defer { _ = fixture.gateway.stop() }
        let log = GatedRecorder.Log()
        let recording = UnregisteredTokenRecording(GatedRecorder(log))
        fixture.options.unregisteredTokens = recording
        let provider = Provider(options: fixture.options)
        // The first batch is stuck in the recorder; the provider answers all 200 regardless.
        let responses = await provider.send(PushNotification().setAlertText("hi"), to: devices)
        #expect(responses.allSatisfy { $0.reason == .unregistered })
        #expect(log.batches.withLock { $0.count } == 1)
        log.gate.signal()
        await provider.shutdown()
        let batches = log.batches.withLock { $0 }
        // Two at most: the first (what had come when the queue first ran), then everything
        // that came while it was held, in one.
        #expect(batches.count <= 2, "\(batches.map(\.count))")
        #expect(Set(batches.joined().map(\.device)) == Set(devices) && batches.joined().count == 200)
        #expect(recording.report.recorded == 200)
    }

    @Test("UnregisteredToken: the tuple's time is Apple's milliseconds divided by 1,000")
    func tupleTime() throws {
        let token = UnregisteredToken(device: Tests.device(1), timestamp: Date(timeIntervalSince1970: 1_700_000_000.999))
        #expect(token.unixTime == 1_700_000_000)
        #expect(token.feedbackEntry == Feedback.Entry(unixTime: 1_700_000_000, device: Tests.device(1)))
    }
}
