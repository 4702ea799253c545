import APN
import APNFeedbackStore
import CSQLite
import Foundation
import Testing
import APNTestSupport

/// The token registry: Apple's rule for each feedback tuple, idempotence, registrations and
/// unregistrations in any order, and typed errors for files it cannot use.
@Suite("Token store")
struct TokenStoreTests {
    /// A fresh store in its own temporary folder (SQLite) or schema (PostgreSQL), removed at
    /// the end of the test.
    final class Folder {
        let url: URL
        var path: String { url.appendingPathComponent("tokens.sqlite").path }
        /// The PostgreSQL schema, for a PostgreSQL store.
        let schema: String?
        /// What ``store(_:)`` opens: the file, or the URL naming the schema.
        let location: String

        init(_ backend: StoreBackend = .sqlite) throws {
            let name = UUID().uuidString
            url = FileManager.default.temporaryDirectory.appendingPathComponent("apn-store-\(name)")
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            switch backend {
            case .sqlite:
                schema = nil
                location = url.appendingPathComponent("tokens.sqlite").path
            case .postgres:
                let schema = "apn_test_" + name.lowercased().replacingOccurrences(of: "-", with: "")
                self.schema = schema
                location = try Self.postgresLocation(schema: schema)
            }
        }

        deinit {
            try? FileManager.default.removeItem(at: url)
            if let schema { PostgresAdmin.drop(schema: schema) }
        }

        func store(_ configure: (inout TokenStore.Options) -> Void = { _ in }) throws -> TokenStore {
            var options = TokenStore.Options()
            configure(&options)
            return try TokenStore(location: location, options: options)
        }

        /// The bridge's state in the same database.
        func bridgeState(_ configure: (inout TokenStore.Options) -> Void = { _ in }) throws -> BridgeStateStore {
            var options = TokenStore.Options()
            configure(&options)
            return try BridgeStateStore(location: location, options: options)
        }

        /// Runs SQL on the file with a connection of its own.
        func sql(_ statement: String) {
            var handle: OpaquePointer?
            sqlite3_open(path, &handle)
            sqlite3_exec(handle, statement, nil, nil, nil)
            sqlite3_close(handle)
        }
    }

    static func device(_ n: Int) -> Device {
        try! Device(token: [UInt8](repeating: 0xAB, count: 30) + [UInt8(n >> 8), UInt8(n & 0xFF)])
    }

    static func entry(_ n: Int, at time: UInt32) -> Feedback.Entry {
        Feedback.Entry(unixTime: time, device: device(n))
    }

    @Test(arguments: StoreBackend.available)
    func feedbackAtOrAfterTheRegistrationDeactivatesLaterRegistrationKeepsUnknownIsRecorded(_ backend: StoreBackend) throws {
        let folder = try Folder(backend)
        let store = try folder.store()
        try store.register(Self.device(1), topic: "com.example.app", at: 1_000)
        try store.register(Self.device(2), at: 1_000)
        try store.register(Self.device(3), at: 2_000)
        let summary = try store.apply(
            [Self.entry(1, at: 1_500), Self.entry(2, at: 1_000), Self.entry(3, at: 1_500), Self.entry(4, at: 1_500)],
            readAt: 3_000)
        #expect(summary.read == 4 && summary.deactivated == 2 && summary.kept == 1 && summary.unknown == 1)
        #expect(summary.duplicates == 0)
        let first = try #require(try store.lookup(Self.device(1)))
        #expect(!first.isActive && first.deactivatedAt == 1_500 && first.lastFeedbackAt == 1_500)
        #expect(first.topic == "com.example.app" && first.registeredAt == 1_000)
        #expect(try store.lookup(Self.device(2))?.isActive == false, "at the registration time: deactivated")
        let kept = try #require(try store.lookup(Self.device(3)))
        #expect(kept.isActive && kept.deactivatedAt == nil && kept.lastFeedbackAt == 1_500, "re-registered after: kept")
        #expect(try store.lookup(Self.device(4)) == nil, "an unknown token is not registered by feedback")
    }

    @Test(arguments: StoreBackend.available)
    func applyingTheSameTuplesAgainChangesNothing(_ backend: StoreBackend) throws {
        let folder = try Folder(backend)
        let store = try folder.store()
        try store.register(Self.device(1), at: 1_000)
        let batch = [Self.entry(1, at: 1_500), Self.entry(9, at: 1_500)]
        try store.apply(batch, readAt: 2_000)
        try store.register(Self.device(1), at: 1_600)
        let again = try store.apply(batch, readAt: 2_100)
        #expect(again.duplicates == 2 && again.deactivated == 0 && again.unknown == 0)
        #expect(try store.lookup(Self.device(1))?.isActive == true, "the re-registration after it stands")
    }

    @Test("a token or a tuple twice in one batch ends as one after the other would", arguments: StoreBackend.available)
    func repeatsInOneBatchEndAsOneAfterTheOther(_ backend: StoreBackend) throws {
        let folder = try Folder(backend)
        let store = try folder.store()
        // PostgreSQL sends a batch as one statement: it must merge what SQLite applies in turn.
        let registered = try store.register([
            TokenStore.Registration(device: Self.device(1), topic: "first", at: 2_000),
            TokenStore.Registration(device: Self.device(2), at: 1_000),
            TokenStore.Registration(device: Self.device(1), topic: "second", at: 1_000),
            TokenStore.Registration(device: Self.device(1), at: 1_500),
        ])
        #expect(registered == 4)
        let one = try #require(try store.lookup(Self.device(1)))
        #expect(one.registeredAt == 2_000 && one.topic == "second", "the latest time, the last topic given")
        let summary = try store.apply(
            [Self.entry(2, at: 1_200), Self.entry(2, at: 1_200), Self.entry(2, at: 1_100), Self.entry(1, at: 1_900)],
            readAt: 3_000)
        #expect(summary.read == 4 && summary.duplicates == 1 && summary.deactivated == 2 && summary.kept == 1)
        let two = try #require(try store.lookup(Self.device(2)))
        #expect(!two.isActive && two.deactivatedAt == 1_200 && two.lastFeedbackAt == 1_200)
        #expect(try store.lookup(Self.device(1))?.isActive == true)
        #expect(try store.feedbackCount() == 3)
    }

    @Test(arguments: StoreBackend.available)
    func aRegistrationImportedAfterItsFeedbackFollowsApplesRuleToo(_ backend: StoreBackend) throws {
        let folder = try Folder(backend)
        let store = try folder.store()
        let summary = try store.apply([Self.entry(1, at: 1_500), Self.entry(2, at: 1_500)], readAt: 1_600)
        #expect(summary.unknown == 2, "neither is known yet")
        try store.register([
            TokenStore.Registration(device: Self.device(1), at: 1_000),
            TokenStore.Registration(device: Self.device(2), at: 2_000),
        ])
        let before = try #require(try store.lookup(Self.device(1)))
        #expect(!before.isActive && before.deactivatedAt == 1_500 && before.lastFeedbackAt == 1_500,
            "registered before the feedback time: deactivated, whatever order they arrived in")
        let after = try #require(try store.lookup(Self.device(2)))
        #expect(after.isActive && after.deactivatedAt == nil && after.lastFeedbackAt == 1_500, "registered after it: kept")
        try store.register(Self.device(1), at: 1_501)
        #expect(try store.lookup(Self.device(1))?.isActive == true, "registered again later: active")
    }

    @Test(arguments: StoreBackend.available)
    func registrationsAndUnregistrationsInAnyOrderKeepTheLatest(_ backend: StoreBackend) throws {
        let folder = try Folder(backend)
        let store = try folder.store()
        try store.register(Self.device(1), at: 1_000)
        try store.apply([Self.entry(1, at: 1_200)], readAt: 1_300)
        try store.register(Self.device(1), at: 1_100)
        #expect(try store.lookup(Self.device(1))?.isActive == false, "an older registration does not undo feedback")
        try store.register(Self.device(1), at: 1_200)
        #expect(try store.lookup(Self.device(1))?.isActive == false, "the same second: still deactivated")
        try store.register(Self.device(1), at: 1_201)
        let back = try #require(try store.lookup(Self.device(1)))
        #expect(back.isActive && back.deactivatedAt == nil && back.registeredAt == 1_201)
        #expect(try store.unregister(Self.device(1), at: 1_100) == false, "an unregistration older than the registration")
        #expect(try store.unregister(Self.device(1), at: 1_300))
        #expect(try store.lookup(Self.device(1))?.deactivatedAt == 1_300)
        #expect(try store.unregister(Self.device(7), at: 1_300) == false, "unknown: nothing to change")
    }

    @Test(arguments: StoreBackend.available)
    func listsAndCountsByState(_ backend: StoreBackend) throws {
        let folder = try Folder(backend)
        let store = try folder.store()
        let imported = try store.register((1...100).map { TokenStore.Registration(device: Self.device($0), at: 1_000) })
        #expect(imported == 100)
        try store.apply((1...30).map { Self.entry($0, at: 2_000) }, readAt: 2_001)
        let counts = try store.counts()
        #expect(counts.active == 70 && counts.inactive == 30)
        var inactive: [Device] = []
        try store.list(.inactive) { inactive.append($0.device) }
        #expect(inactive == (1...30).map(Self.device))
        var active = 0
        try store.list(.active) { record in
            #expect(record.isActive)
            active += 1
        }
        #expect(active == 70)
    }

    @Test(arguments: StoreBackend.available)
    func whatWasCommittedSurvivesReopening(_ backend: StoreBackend) throws {
        let folder = try Folder(backend)
        do {
            let store = try folder.store()
            try store.register(Self.device(1), at: 1_000)
            try store.apply([Self.entry(1, at: 1_500)], readAt: 1_600)
        }
        let reopened = try folder.store()
        #expect(try reopened.lookup(Self.device(1))?.isActive == false)
        #expect(try reopened.apply([Self.entry(1, at: 1_500)], readAt: 1_700).duplicates == 1)
    }

    @Test func aFileFromANewerSchemaIsRefusedUntouched() throws {
        let folder = try Folder()
        _ = try folder.store()
        folder.sql("PRAGMA user_version = 9")
        #expect {
            _ = try folder.store()
        } throws: { error in
            (error as? StoreError)?.kind == .schemaTooNew(found: 9, supported: 5)
        }
    }

    @Test func aFileThatIsNotADatabaseIsCorrupt() throws {
        let folder = try Folder()
        try Data(repeating: 0x5A, count: 4096).write(to: URL(fileURLWithPath: folder.path))
        #expect {
            _ = try folder.store()
        } throws: { error in
            (error as? StoreError)?.kind == .corrupt
        }
    }

    @Test func aMissingFileIsNotCreatedWhenAskedNotTo() throws {
        let folder = try Folder()
        #expect {
            _ = try folder.store { $0.create = false }
        } throws: { error in
            (error as? StoreError)?.kind == .cannotOpen
        }
        #expect(!FileManager.default.fileExists(atPath: folder.path))
    }

    @Test func aWriterHeldElsewhereIsReportedLockedAfterTheBusyTimeout() throws {
        let folder = try Folder()
        let store = try folder.store { $0.busyTimeout = .milliseconds(50) }
        var other: OpaquePointer?
        sqlite3_open(folder.path, &other)
        defer { sqlite3_close(other) }
        #expect(sqlite3_exec(other, "BEGIN IMMEDIATE", nil, nil, nil) == SQLITE_OK)
        #expect {
            try store.register(Self.device(1), at: 1)
        } throws: { error in
            (error as? StoreError)?.kind == .locked
        }
        // Readers are not blocked by the writer.
        #expect(try store.lookup(Self.device(1)) == nil)
        sqlite3_exec(other, "ROLLBACK", nil, nil, nil)
        try store.register(Self.device(1), at: 1)
        #expect(try store.lookup(Self.device(1))?.isActive == true)
    }
}
