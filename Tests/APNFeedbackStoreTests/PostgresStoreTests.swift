import APN
import APNFeedbackStore
import Foundation
import Testing
import APNTestSupport

/// What only the PostgreSQL backend does: its schema version refused when newer, passwords
/// kept out of messages, and many writers at once ending in the rule's state.
@Suite("Token store: PostgreSQL", .enabled(if: StoreBackend.postgresURL != nil, "APN_TEST_POSTGRES_URL is not set"))
struct PostgresStoreTests {
    typealias Tests = TokenStoreTests

    @Test func aDatabaseFromANewerSchemaIsRefusedUntouched() throws {
        let folder = try Tests.Folder(.postgres)
        try folder.store().register(Tests.device(1), at: 1_000)
        try PostgresAdmin(folder.location).execute("UPDATE apn_schema SET version = 9")
        #expect {
            _ = try folder.store()
        } throws: { error in
            (error as? StoreError)?.kind == .schemaTooNew(found: 9, supported: 4)
        }
        try PostgresAdmin(folder.location).execute("UPDATE apn_schema SET version = 4")
        #expect(try folder.store().lookup(Tests.device(1))?.registeredAt == 1_000, "nothing was changed")
    }

    @Test func aPasswordInTheURLNeverAppearsInAnError() throws {
        // Port 1 on loopback: nothing listens, so the connection is refused at once.
        let error = #expect(throws: StoreError.self) {
            _ = try TokenStore(location: "postgresql://apn:s3cret-word@127.0.0.1:1/postgres?password=other-s3cret")
        }
        #expect(error?.kind == .cannotOpen)
        let text = String(describing: try #require(error))
        #expect(!text.contains("s3cret") && text.contains("postgresql://apn:***@127.0.0.1:1/postgres?password=***"))
    }

    /// Writers on threads of their own, each with its own connection, as processes on
    /// several hosts would be: each token is registered at 1,000 by one writer, given
    /// feedback at 1,500 by another, and registered again at 2,000 (odd tokens) or 1,200
    /// (even) by a third, all at once, in batches. Whatever order they commit in, the rule
    /// leaves odd tokens active and even ones deactivated at 1,500.
    @Test func manyWritersAtOnceEndInTheRulesState() async throws {
        let folder = try Tests.Folder(.postgres)
        _ = try folder.store()
        let tokens = 1...200
        let location = folder.location
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<3 {
                group.addTask {
                    let store = try TokenStore(location: location)
                    for batch in stride(from: tokens.lowerBound, through: tokens.upperBound, by: 20) {
                        let slice = batch..<min(batch + 20, tokens.upperBound + 1)
                        switch writer {
                        case 0: try store.register(slice.map { TokenStore.Registration(device: Tests.device($0), at: 1_000) })
                        case 1: try store.apply(slice.map { Tests.entry($0, at: 1_500) }, readAt: 1_600)
                        default:
                            try store.register(slice.map {
                                TokenStore.Registration(device: Tests.device($0), at: $0 % 2 == 1 ? 2_000 : 1_200)
                            })
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        let store = try folder.store()
        for n in tokens {
            let record = try #require(try store.lookup(Tests.device(n)))
            #expect(record.registeredAt == (n % 2 == 1 ? 2_000 : 1_200))
            if n % 2 == 1 {
                #expect(record.isActive, "token \(n): registered after the feedback")
            } else {
                #expect(!record.isActive && record.deactivatedAt == 1_500, "token \(n): feedback after its registration")
            }
            #expect(record.lastFeedbackAt == 1_500)
        }
        #expect(try store.feedbackCount() == tokens.count, "each tuple held once")
    }
}
