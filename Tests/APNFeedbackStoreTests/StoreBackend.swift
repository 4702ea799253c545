import APNFeedbackStore
import CPostgreSQL
import Foundation
import Testing

/// The backends the shared behaviour tests run on: SQLite always, PostgreSQL when
/// `APN_TEST_POSTGRES_URL` names a server (scripts/postgres-test-cluster starts one; the
/// password comes from PGPASSWORD or PGPASSFILE). Each PostgreSQL test gets a schema of its
/// own, dropped at the end.
enum StoreBackend: String, CustomStringConvertible, Sendable {
    case sqlite
    case postgres

    /// The server the PostgreSQL runs use, if any.
    static let postgresURL: String? = ProcessInfo.processInfo.environment["APN_TEST_POSTGRES_URL"].flatMap {
        $0.isEmpty ? nil : $0
    }

    /// Every backend a test can run on here.
    static let available: [StoreBackend] = postgresURL == nil ? [.sqlite] : [.sqlite, .postgres]

    var description: String { rawValue }
}

/// A raw libpq connection to the test server, for what a test does beside the store: make
/// and drop its schema, change a row the store would not.
final class PostgresAdmin {
    private let connection: OpaquePointer

    init(_ url: String) throws {
        guard let connection = PQconnectdb(url), PQstatus(connection) == CONNECTION_OK else {
            throw RawSQLError(message: "cannot connect to APN_TEST_POSTGRES_URL")
        }
        self.connection = connection
    }

    deinit { PQfinish(connection) }

    func execute(_ sql: String) throws {
        let result = PQexec(connection, sql)
        defer { PQclear(result) }
        let status = PQresultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else {
            throw RawSQLError(message: String(cString: PQerrorMessage(connection)))
        }
    }
}

extension TokenStoreTests.Folder {
    /// The store's location for `backend`: this folder's file, or a fresh schema on the test
    /// server (named in the URL's `search_path`, so the store's tables go there).
    static func postgresLocation(schema: String) throws -> String {
        guard let url = StoreBackend.postgresURL else { throw RawSQLError(message: "APN_TEST_POSTGRES_URL is not set") }
        let admin = try PostgresAdmin(url)
        try admin.execute("CREATE SCHEMA \(schema)")
        return url + (url.contains("?") ? "&" : "?") + "options=-csearch_path%3D\(schema)"
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
