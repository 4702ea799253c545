import Foundation
import APNTestSupport

/// Where an `apn` test keeps its token store: the folder's SQLite file, or a schema of its
/// own on the PostgreSQL test server (`APN_TEST_POSTGRES_URL`), dropped when released.
final class ApnStoreLocation: Sendable {
    /// The backends a test can run on here: SQLite always, PostgreSQL when a server is set.
    enum Backend: String, CustomStringConvertible, Sendable {
        case sqlite
        case postgres

        static let available: [Backend] = PostgresAdmin.testURL == nil ? [.sqlite] : [.sqlite, .postgres]

        var description: String { rawValue }
    }

    /// `--store`'s value.
    let location: String
    private let schema: String?

    init(_ backend: Backend, folder: ApnTokensTests.Folder) throws {
        switch backend {
        case .sqlite:
            schema = nil
            location = folder.store
        case .postgres:
            let schema = "apn_cli_\(UInt32.random(in: 0...UInt32.max))"
            self.schema = schema
            location = try PostgresAdmin.location(schema: schema)
        }
    }

    /// Calls `body` with a fresh folder and a store location on `backend` in it, removed after.
    static func with<T>(_ backend: Backend, _ body: (ApnTokensTests.Folder, String) throws -> T) throws -> T {
        let folder = try ApnTokensTests.Folder()
        let place = try ApnStoreLocation(backend, folder: folder)
        return try withExtendedLifetime(place) { try body(folder, place.location) }
    }

    deinit {
        if let schema { PostgresAdmin.drop(schema: schema) }
    }
}
