import APN
import APNFeedbackStore
import CSQLite
import Foundation
import Testing

/// The per-tenant feedback outbox: each 410 queued once per (tenant, token) with the latest
/// time, served oldest first, removed only as served, tenants apart, durable, and added to
/// a version-1 file without losing what it held.
@Suite("Token store: feedback outbox")
struct FeedbackOutboxTests {
    typealias Tests = TokenStoreTests

    static func queued(_ tenant: String, _ n: Int, at time: UInt32) -> BridgeStateStore.QueuedFeedback {
        BridgeStateStore.QueuedFeedback(tenant: tenant, entry: Tests.entry(n, at: time))
    }

    @Test(arguments: StoreBackend.available)
    func queuedTuplesAreServedThenRemoved(_ backend: StoreBackend) throws {
        let folder = try Tests.Folder(backend)
        let store = try folder.bridgeState()
        try store.queueFeedback([Self.queued("a", 1, at: 300), Self.queued("a", 2, at: 100), Self.queued("a", 3, at: 200)])
        #expect(try store.pendingFeedbackCount(tenant: "a") == 3)
        let served = try store.pendingFeedback(tenant: "a", limit: 10)
        #expect(served == [Tests.entry(2, at: 100), Tests.entry(3, at: 200), Tests.entry(1, at: 300)])
        #expect(try store.pendingFeedback(tenant: "a", limit: 10) == served, "reading removes nothing")
        #expect(try store.removeServedFeedback(tenant: "a", served) == 3)
        #expect(try store.pendingFeedbackCount(tenant: "a") == 0)
        #expect(try store.pendingFeedback(tenant: "a", limit: 10).isEmpty)
        #expect(try store.removeServedFeedback(tenant: "a", served) == 0, "removing again changes nothing")
        let registry = try folder.store()
        #expect(try registry.feedbackCount() == 0 && registry.counts().inactive == 0, "the registry is not touched")
    }

    @Test(arguments: StoreBackend.available)
    func aTenantSeesAndRemovesOnlyItsOwn(_ backend: StoreBackend) throws {
        let folder = try Tests.Folder(backend)
        let store = try folder.bridgeState()
        try store.queueFeedback([
            Self.queued("a", 1, at: 100), Self.queued("b", 1, at: 100), Self.queued("b", 2, at: 150),
        ])
        #expect(try store.pendingFeedback(tenant: "a", limit: 10) == [Tests.entry(1, at: 100)])
        #expect(try store.pendingFeedback(tenant: "b", limit: 10) == [Tests.entry(1, at: 100), Tests.entry(2, at: 150)])
        #expect(try store.pendingFeedback(tenant: "c", limit: 10).isEmpty && store.pendingFeedbackCount(tenant: "c") == 0)
        #expect(try store.pendingFeedback(tenant: "A", limit: 10).isEmpty, "tenants are compared exactly")
        #expect(try store.removeServedFeedback(tenant: "a", [Tests.entry(1, at: 100), Tests.entry(2, at: 150)]) == 1)
        #expect(try store.pendingFeedbackCount(tenant: "a") == 0)
        #expect(try store.pendingFeedbackCount(tenant: "b") == 2, "the same token and time for another tenant stays")
    }

    @Test(arguments: StoreBackend.available)
    func aLaterTimeReplacesAnEarlierOneDoesNot(_ backend: StoreBackend) throws {
        let folder = try Tests.Folder(backend)
        let store = try folder.bridgeState()
        try store.queueFeedback([Self.queued("a", 1, at: 200)])
        try store.queueFeedback([Self.queued("a", 1, at: 300)])
        #expect(try store.pendingFeedback(tenant: "a", limit: 10) == [Tests.entry(1, at: 300)])
        try store.queueFeedback([Self.queued("a", 1, at: 250)])
        #expect(try store.pendingFeedback(tenant: "a", limit: 10) == [Tests.entry(1, at: 300)], "an earlier 410 arriving late")
        try store.queueFeedback([Self.queued("a", 2, at: 500), Self.queued("a", 2, at: 400)])
        #expect(try store.pendingFeedback(tenant: "a", limit: 10) == [Tests.entry(1, at: 300), Tests.entry(2, at: 500)],
            "within one batch too")
        #expect(try store.pendingFeedbackCount(tenant: "a") == 2, "one row per token")
    }

    @Test(arguments: StoreBackend.available)
    func aNewer410ArrivingWhileServingIsServedNext(_ backend: StoreBackend) throws {
        let folder = try Tests.Folder(backend)
        let store = try folder.bridgeState()
        try store.queueFeedback([Self.queued("a", 1, at: 100), Self.queued("a", 2, at: 100)])
        let served = try store.pendingFeedback(tenant: "a", limit: 10)
        try store.queueFeedback([Self.queued("a", 1, at: 200)])
        #expect(try store.removeServedFeedback(tenant: "a", served) == 1, "only the row whose time was served")
        let next = try store.pendingFeedback(tenant: "a", limit: 10)
        #expect(next == [Tests.entry(1, at: 200)])
        #expect(try store.removeServedFeedback(tenant: "a", next) == 1)
        #expect(try store.pendingFeedbackCount(tenant: "a") == 0)
    }

    @Test(arguments: StoreBackend.available)
    func oldestFirstEqualTimesInTokenOrderAtMostTheLimit(_ backend: StoreBackend) throws {
        let folder = try Tests.Folder(backend)
        let store = try folder.bridgeState()
        try store.queueFeedback([
            Self.queued("a", 9, at: 300), Self.queued("a", 5, at: 100), Self.queued("a", 7, at: 200),
            Self.queued("a", 2, at: 100), Self.queued("a", 1, at: 300),
        ])
        let all = [
            Tests.entry(2, at: 100), Tests.entry(5, at: 100), Tests.entry(7, at: 200),
            Tests.entry(1, at: 300), Tests.entry(9, at: 300),
        ]
        #expect(try store.pendingFeedback(tenant: "a", limit: 100) == all)
        #expect(try store.pendingFeedback(tenant: "a", limit: 2) == Array(all.prefix(2)))
        #expect(try store.pendingFeedback(tenant: "a", limit: 0).isEmpty)
        try store.removeServedFeedback(tenant: "a", all.prefix(2))
        #expect(try store.pendingFeedback(tenant: "a", limit: 2) == Array(all[2..<4]), "the next oldest after removal")
        let negative = #expect(throws: StoreError.self, "a negative limit is not 'no limit'") {
            try store.pendingFeedback(tenant: "a", limit: -1)
        }
        #expect(negative?.kind == .invalidValue)
    }

    @Test(arguments: StoreBackend.available)
    func anEmptyTenantIsRefusedAndAFailedBatchQueuesNothing(_ backend: StoreBackend) throws {
        let folder = try Tests.Folder(backend)
        let store = try folder.bridgeState()
        let batch = #expect(throws: StoreError.self) {
            try store.queueFeedback([Self.queued("a", 1, at: 100), Self.queued("", 2, at: 100)])
        }
        #expect(batch?.kind == .invalidValue)
        #expect(try store.pendingFeedbackCount(tenant: "a") == 0, "one transaction: all or none")
        let pending = #expect(throws: StoreError.self) { try store.pendingFeedback(tenant: "", limit: 1) }
        let count = #expect(throws: StoreError.self) { try store.pendingFeedbackCount(tenant: "") }
        let removal = #expect(throws: StoreError.self) { try store.removeServedFeedback(tenant: "", [Feedback.Entry]()) }
        #expect([pending, count, removal].allSatisfy { $0?.kind == .invalidValue })
    }

    @Test(arguments: StoreBackend.available)
    func whatWasQueuedOrRemovedSurvivesReopening(_ backend: StoreBackend) throws {
        let folder = try Tests.Folder(backend)
        do {
            let store = try folder.bridgeState()
            try store.queueFeedback([Self.queued("a", 1, at: 100), Self.queued("a", 2, at: 200), Self.queued("b", 3, at: 300)])
        }
        do {
            let store = try folder.bridgeState()
            let served = try store.pendingFeedback(tenant: "a", limit: 1)
            #expect(served == [Tests.entry(1, at: 100)])
            try store.removeServedFeedback(tenant: "a", served)
        }
        let store = try folder.bridgeState()
        #expect(try store.pendingFeedback(tenant: "a", limit: 10) == [Tests.entry(2, at: 200)])
        #expect(try store.pendingFeedback(tenant: "b", limit: 10) == [Tests.entry(3, at: 300)])
    }

    @Test func aVersion1FileKeepsItsDataAndGainsTheOutbox() throws {
        let folder = try Tests.Folder()
        let token = Tests.device(1).token.map { String(format: "%02x", $0) }.joined()
        // Version 1's schema as it shipped, frozen here: the migration must keep such files.
        try folder.checkedSQL("""
            PRAGMA journal_mode = WAL;
            CREATE TABLE tokens (
                token BLOB PRIMARY KEY NOT NULL,
                topic TEXT,
                registered_at INTEGER NOT NULL,
                active INTEGER NOT NULL,
                deactivated_at INTEGER,
                last_feedback_at INTEGER
            ) WITHOUT ROWID;
            CREATE INDEX tokens_by_state ON tokens (active, token);
            CREATE TABLE feedback (
                token BLOB NOT NULL,
                time INTEGER NOT NULL,
                read_at INTEGER NOT NULL,
                applied TEXT NOT NULL,
                PRIMARY KEY (token, time)
            ) WITHOUT ROWID;
            INSERT INTO tokens VALUES (X'\(token)', 'com.example.app', 1000, 0, 1500, 1500);
            INSERT INTO feedback VALUES (X'\(token)', 1500, 1600, 'deactivated');
            PRAGMA user_version = 1;
            """)
        let state = try folder.bridgeState()
        let store = try folder.store()
        let record = try #require(try store.lookup(Tests.device(1)))
        #expect(record.topic == "com.example.app" && record.registeredAt == 1_000 && !record.isActive)
        #expect(record.deactivatedAt == 1_500 && record.lastFeedbackAt == 1_500)
        var received: [FeedbackRecord] = []
        try store.feedback { received.append($0) }
        #expect(received.map(\.device) == [Tests.device(1)])
        #expect(received.map(\.time) == [1_500] && received.map(\.readAt) == [1_600] && received.map(\.outcome) == [.deactivated])
        #expect(try folder.integer("PRAGMA user_version") == 5)
        #expect(try folder.integer("SELECT count(*) FROM sqlite_schema WHERE name = 'feedback_outbox'") == 1)
        try state.queueFeedback([Self.queued("a", 1, at: 1_700)])
        #expect(try state.pendingFeedback(tenant: "a", limit: 1) == [Tests.entry(1, at: 1_700)])
    }

    @Test(arguments: StoreBackend.available)
    func tenThousandInOneBatch(_ backend: StoreBackend) throws {
        let folder = try Tests.Folder(backend)
        let store = try folder.bridgeState()
        let count = 10_000
        // Times run backwards so the order served is the reverse of the order queued.
        try store.queueFeedback((1...count).map { Self.queued("a", $0, at: UInt32(100_000 - $0)) })
        #expect(try store.pendingFeedbackCount(tenant: "a") == count)
        let served = try store.pendingFeedback(tenant: "a", limit: count)
        #expect(served == (1...count).reversed().map { Tests.entry($0, at: UInt32(100_000 - $0)) })
        #expect(try store.removeServedFeedback(tenant: "a", served) == count)
        #expect(try store.pendingFeedbackCount(tenant: "a") == 0)
    }
}

extension TokenStoreTests.Folder {
    /// Runs SQL on the file with a connection of its own; throws when SQLite refuses it.
    func checkedSQL(_ statement: String) throws {
        var handle: OpaquePointer?
        defer { sqlite3_close(handle) }
        guard sqlite3_open(path, &handle) == SQLITE_OK,
            sqlite3_exec(handle, statement, nil, nil, nil) == SQLITE_OK
        else { throw RawSQLError(message: String(cString: sqlite3_errmsg(handle))) }
    }

    /// The first column of the first row a query returns, read with a connection of its own.
    func integer(_ query: String) throws -> Int64? {
        var handle: OpaquePointer?
        defer { sqlite3_close(handle) }
        var statement: OpaquePointer?
        defer { sqlite3_finalize(statement) }
        guard sqlite3_open(path, &handle) == SQLITE_OK,
            sqlite3_prepare_v2(handle, query, -1, &statement, nil) == SQLITE_OK
        else { throw RawSQLError(message: String(cString: sqlite3_errmsg(handle))) }
        return sqlite3_step(statement) == SQLITE_ROW ? sqlite3_column_int64(statement, 0) : nil
    }
}

/// SQLite refused a statement a test ran on the file directly.
struct RawSQLError: Error {
    let message: String
}

/// #41: servers sharing a store claim tuples for a visit, so each is served once whichever
/// server a client reaches; a claim released or expired makes them claimable again.
@Suite("Token store: feedback claims")
struct FeedbackClaimTests {
    typealias Tests = TokenStoreTests

    @Test(arguments: StoreBackend.available)
    func aClaimedTupleIsNotClaimedAgainUntilReleasedOrExpired(_ backend: StoreBackend) throws {
        let folder = try Tests.Folder(backend)
        let one = try folder.bridgeState()
        let other = try folder.bridgeState()
        try one.queueFeedback([FeedbackOutboxTests.queued("a", 1, at: 300), FeedbackOutboxTests.queued("a", 2, at: 100),
                               FeedbackOutboxTests.queued("a", 3, at: 200)])
        let first = try one.claimFeedback(tenant: "a", limit: 2, now: 1_000, until: 61_000)
        #expect(first == [Tests.entry(2, at: 100), Tests.entry(3, at: 200)], "oldest first")
        #expect(try other.claimFeedback(tenant: "a", limit: 10, now: 2_000, until: 62_000) == [Tests.entry(1, at: 300)])
        #expect(try other.claimFeedback(tenant: "a", limit: 10, now: 3_000, until: 63_000).isEmpty, "all claimed")
        // The first visit's client went away: released, claimable at once.
        try one.releaseFeedback(tenant: "a", [Tests.entry(3, at: 200)])
        #expect(try other.claimFeedback(tenant: "a", limit: 10, now: 4_000, until: 64_000) == [Tests.entry(3, at: 200)])
        // Served ones are removed; a claim not settled expires.
        #expect(try one.removeServedFeedback(tenant: "a", [Tests.entry(2, at: 100)]) == 1)
        #expect(try other.claimFeedback(tenant: "a", limit: 10, now: 62_000, until: 122_000) == [Tests.entry(1, at: 300)])
        #expect(try one.claimFeedback(tenant: "b", limit: 10, now: 62_000, until: 122_000).isEmpty, "tenants apart")
    }
}
