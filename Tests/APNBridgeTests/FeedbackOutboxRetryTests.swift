import APN
import APNBridge
import APNFeedbackStore
import CSQLite
import Foundation
import Synchronization
import Testing

/// The bridge's feedback outbox when its store fails: the 410 is kept in memory and
/// written once the store works again, and the log hears of the failure and the recovery
/// once each. The failure is real: another connection holds SQLite's exclusive lock, and
/// the outbox's store waits only 10 ms for it.
@Suite struct FeedbackOutboxRetryTests {
    /// What the outbox logged and stored, with a signal for each.
    final class Observed: Sendable {
        let events = Mutex<[BridgeEvent]>([])
        let logged = DispatchSemaphore(value: 0)
        let stored = DispatchSemaphore(value: 0)
    }

    @Test func aTupleTheLockedStoreRefusedIsWrittenOnceItIsFree() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("outbox-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("tokens.sqlite").path
        var options = TokenStore.Options()
        options.busyTimeout = .milliseconds(10)
        let observed = Observed()
        let outbox = try FeedbackOutbox(
            path: path, storeOptions: options,
            log: { event in
                observed.events.withLock { $0.append(event) }
                observed.logged.signal()
            },
            changed: { observed.stored.signal() })

        // Another connection takes the write lock and keeps it.
        var handle: OpaquePointer?
        #expect(sqlite3_open(path, &handle) == SQLITE_OK)
        defer { sqlite3_close(handle) }
        #expect(sqlite3_exec(handle, "BEGIN EXCLUSIVE", nil, nil, nil) == SQLITE_OK)

        outbox.start()
        let device = try Device(token: [UInt8](repeating: 0xEF, count: 32))
        outbox.queue([BridgeStateStore.QueuedFeedback(tenant: "app", device: device, unixTime: 1_700_000_000)])
        #expect(observed.logged.wait(timeout: .now() + 60) == .success, "the failure is logged")
        guard case .feedbackStoreFailed(_, let waiting)? = observed.events.withLock({ $0.first }) else {
            Issue.record("not a store failure: \(observed.events.withLock { $0 })")
            return
        }
        #expect(waiting == 1, "the refused tuple waits in memory")
        #expect(outbox.storedCount == 0)

        // The lock is released: the next try (a second later) writes it.
        #expect(sqlite3_exec(handle, "COMMIT", nil, nil, nil) == SQLITE_OK)
        #expect(observed.stored.wait(timeout: .now() + 60) == .success, "written after the failure")
        #expect(observed.logged.wait(timeout: .now() + 60) == .success, "the recovery is logged")
        #expect(observed.events.withLock { $0.count } == 2, "once each, not per retry")
        #expect(observed.events.withLock { $0.last } == .feedbackStoreRecovered)
        #expect(outbox.storedCount == 1)
        #expect(outbox.pending(tenant: "app", limit: 10) == [Feedback.Entry(unixTime: 1_700_000_000, device: device)])
        outbox.stop()
        #expect(outbox.lostCount == 0)
    }
}
