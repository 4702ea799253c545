import APNFeedbackStore
import Foundation
import Testing
import APNTestSupport

/// The backends the shared behaviour tests run on: SQLite always, PostgreSQL when
/// `APN_TEST_POSTGRES_URL` names a server (scripts/postgres-test-cluster starts one; the
/// password comes from PGPASSWORD or PGPASSFILE). Each PostgreSQL test gets a schema of its
/// own, dropped at the end.
enum StoreBackend: String, CustomStringConvertible, Sendable {
    case sqlite
    case postgres

    /// The server the PostgreSQL runs use, if any.
    static let postgresURL = PostgresAdmin.testURL

    /// Every backend a test can run on here.
    static let available: [StoreBackend] = postgresURL == nil ? [.sqlite] : [.sqlite, .postgres]

    var description: String { rawValue }
}

extension TokenStoreTests.Folder {
    /// The store's location for `backend`: this folder's file, or a fresh schema on the test
    /// server (named in the URL's `search_path`, so the store's tables go there).
    static func postgresLocation(schema: String) throws -> String {
        try PostgresAdmin.location(schema: schema)
    }
}

@Suite("Token store: backends")
struct StoreBackendTests {
    @Test(
        "PostgreSQL runs of the shared suite: a server is reachable",
        .enabled(
            if: StoreBackend.postgresURL != nil,
            "APN_TEST_POSTGRES_URL is not set: the shared token store suite ran on SQLite only (scripts/postgres-test-cluster starts a server)"))
    func postgresIsReachable() throws {
        _ = try PostgresAdmin(try #require(StoreBackend.postgresURL))
    }
}
