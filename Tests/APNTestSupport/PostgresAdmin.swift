import CPostgreSQL
import Foundation

/// A raw libpq connection to the test server (`APN_TEST_POSTGRES_URL`), for what a test
/// does beside the store: make and drop its schema, change a row the store would not.
package final class PostgresAdmin {
    /// The server refused the connection or a statement.
    package struct Failure: Error, CustomStringConvertible {
        /// libpq's message.
        package let description: String
    }

    /// The test server's URL, when `APN_TEST_POSTGRES_URL` names one.
    package static let testURL: String? = ProcessInfo.processInfo.environment["APN_TEST_POSTGRES_URL"].flatMap {
        $0.isEmpty ? nil : $0
    }

    private let connection: OpaquePointer

    /// Connects to `url` (the password from PGPASSWORD or PGPASSFILE).
    package init(_ url: String) throws {
        guard let connection = PQconnectdb(url), PQstatus(connection) == CONNECTION_OK else {
            throw Failure(description: "cannot connect to APN_TEST_POSTGRES_URL")
        }
        self.connection = connection
    }

    deinit { PQfinish(connection) }

    /// Runs `sql`; throws what the server said when it fails.
    package func execute(_ sql: String) throws {
        let result = PQexec(connection, sql)
        defer { PQclear(result) }
        let status = PQresultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else {
            throw Failure(description: String(cString: PQerrorMessage(connection)))
        }
    }

    /// Creates `schema` on the server at `server` (the test server by default) and returns a
    /// store location whose tables go there (the URL's `search_path`).
    package static func location(schema: String, server: String? = testURL) throws -> String {
        guard let url = server else { throw Failure(description: "APN_TEST_POSTGRES_URL is not set") }
        try PostgresAdmin(url).execute("CREATE SCHEMA \(schema)")
        return url + (url.contains("?") ? "&" : "?") + "options=-csearch_path%3D\(schema)"
    }

    /// Drops `schema` and what it holds, if the server (the test server by default) is set.
    package static func drop(schema: String, server: String? = testURL) {
        guard let url = server else { return }
        // Quiet: the cascade's notice would go to standard error.
        try? PostgresAdmin(url).execute("SET client_min_messages = warning; DROP SCHEMA \(schema) CASCADE")
    }
}
