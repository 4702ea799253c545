import APN
import APNFeedbackStore
import CSQLite
import Foundation
import APNTestSupport
import Testing

/// The check a feedback consumer makes before taking tuples it cannot get again
/// (`checkWritable(freeBytes:)`), the import that replays what it could not commit
/// (`importRecords`), and the test-only commit failure the CLI tests inject.
@Suite("Token store: write check and import")
struct TokenStoreWriteCheckTests {
    typealias Folder = TokenStoreTests.Folder

    static func device(_ n: Int) -> Device { TokenStoreTests.device(n) }

    @Test func theCheckPassesOnAWritableStoreAndLeavesNothingBehind() throws {
        let folder = try Folder()
        let store = try folder.store()
        try store.register(Self.device(1), at: 10)
        try store.checkWritable(freeBytes: 1 << 20)
        try store.checkWritable(freeBytes: 0)
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.url.path)
        #expect(!files.contains { $0.hasSuffix(".write-check") }, "\(files)")
        #expect(try store.counts() == (1, 0) && store.feedbackCount() == 0)
        // The rolled-back probe left the schema version (the page it changes) as it was.
        #expect(try TokenStore(path: folder.path).lookup(Self.device(1))?.registeredAt == 10)
    }

    @Test func theCheckFailsLockedWhileAnotherConnectionHoldsTheWriteLock() throws {
        let folder = try Folder()
        let store = try folder.store { $0.busyTimeout = .milliseconds(20) }
        var other: OpaquePointer?
        sqlite3_open(folder.path, &other)
        defer { sqlite3_close(other) }
        #expect(sqlite3_exec(other, "BEGIN IMMEDIATE", nil, nil, nil) == SQLITE_OK)
        #expect {
            try store.checkWritable(freeBytes: 0)
        } throws: { error in
            (error as? StoreError)?.kind == .locked
        }
        sqlite3_exec(other, "ROLLBACK", nil, nil, nil)
        try store.checkWritable(freeBytes: 4096)
    }

    @Test func anInjectedCommitFailureIsAFullDiskAtCommitAndRollsTheBatchBack() throws {
        let folder = try Folder()
        let store = TokenStore.failingCommits(try folder.store(), after: 1)
        try store.apply([Feedback.Entry(unixTime: 5, device: Self.device(1))], readAt: 6)
        #expect {
            try store.apply([Feedback.Entry(unixTime: 5, device: Self.device(2))], readAt: 6)
        } throws: { error in
            let error = error as? StoreError
            return error?.kind == .full && error?.resultCode == SQLITE_FULL
        }
        #expect(try store.feedbackCount() == 1, "the failed batch was rolled back")
        try store.checkWritable(freeBytes: 0)  // commits nothing, so the fault does not touch it
    }

    @Test func anImportAppliesFeedbackByTheServicesRuleInOneTransaction() throws {
        let folder = try Folder()
        let store = try folder.store()
        try store.register(Self.device(1), at: 100)  // before its tuple: deactivated
        try store.register(Self.device(2), at: 300)  // after its tuple: kept
        let feedback = [1, 2, 3, 4].map { Feedback.Entry(unixTime: 200, device: Self.device($0)) }
        // Token 4 is registered by the same import, before its tuple: deactivated, not unknown.
        let (registered, applied) = try store.importRecords(
            [TokenStore.Registration(device: Self.device(4), at: 150)], feedback: feedback, readAt: 1_000)
        #expect(registered == 1)
        #expect(applied.read == 4 && applied.deactivated == 2 && applied.kept == 1 && applied.unknown == 1)
        #expect(try store.lookup(Self.device(1))?.deactivatedAt == 200)
        #expect(try store.lookup(Self.device(2))?.isActive == true)
        #expect(try store.lookup(Self.device(4))?.isActive == false)
        let again = try store.importRecords([TokenStore.Registration](), feedback: feedback, readAt: 2_000)
        #expect(again.feedback.duplicates == 4, "a replay changes nothing")

        let failing = TokenStore.failingCommits(store, after: 0)
        #expect(throws: StoreError.self) {
            try failing.importRecords(
                [TokenStore.Registration(device: Self.device(9), at: 1)],
                feedback: [Feedback.Entry(unixTime: 2, device: Self.device(9))], readAt: 3)
        }
        #expect(try store.lookup(Self.device(9)) == nil && store.feedbackCount() == 4, "nothing of it was kept")
    }
}
