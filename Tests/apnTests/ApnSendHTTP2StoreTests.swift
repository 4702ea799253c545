import APN
import APNFeedbackStore
import Foundation
import Testing
import APNTestSupport
import APNTestTraits

/// `apn send --http2 --store FILE` (issue #26, row 10): the 410s `apn mock-gateway --http2`
/// answers go into the token store by the feedback service's rule, and `apn tokens list`
/// shows them inactive; a store whose commits fail (``PreloadShim/storeFull(_:)``) leaves
/// every 410 in the recovery file, which `apn tokens import` replays.
@Suite("apn send --http2 --store", .threadPerTest, .ownsChildProcesses)
struct ApnSendHTTP2StoreTests {
    static let accepted = String(repeating: "aa", count: 32)
    /// Registered before the 410's timestamp: deactivated.
    static let gone = String(repeating: "cc", count: 32)
    /// Registered again after it: kept active.
    static let back = String(repeating: "dd", count: 32)
    /// Apple's timestamp, milliseconds: the tuple's time is 1,700,000,000.
    static let since = "1700000000123"

    static func gateway() throws -> SendFixture {
        try SendFixture(gatewayArguments: [
            "--http2", "--http2-unregistered", "\(gone):\(since)", "--http2-unregistered", "\(back):\(since)",
        ])
    }

    /// The store with the three tokens registered through `apn tokens register`.
    static func registered(_ folder: ApnTokensTests.Folder) throws {
        for (token, at) in [(accepted, "1699999000"), (gone, "1699999000"), (back, "1700000100")] {
            let (status, _, error) = try ApnTokensTests.tokens(["register", token, "--at", at], store: folder.store)
            #expect(status == 0, "\(error)")
        }
    }

    @Test("410s into the store: the token registered before Apple's timestamp is inactive, the one registered after stays active")
    func intoTheStore() throws {
        let folder = try ApnTokensTests.Folder()
        try Self.registered(folder)
        let fixture = try Self.gateway()
        let (status, lines, standardError) = try fixture.sendHTTP2([
            "--certs", fixture.certs, "--store", folder.store, "--alert", "Hi",
            "--token", Self.accepted, "--token", Self.gone, "--token", Self.back,
        ])
        #expect(status == 1, "two rejected: \(standardError)")
        let summary = try #require(lines.last)
        #expect(summary["rejected"] as? Int == 2 && summary["accepted"] as? Int == 1, "\(summary)")
        #expect(summary["unregistered"] as? Int == 2 && summary["stored"] as? Int == 2, "\(summary)")
        #expect(summary["not_stored"] as? Int == 0 && summary["recovery_file"] == nil, "\(summary)")

        let (listStatus, inactive, listError) = try ApnTokensTests.tokens(["list", "--inactive"], store: folder.store)
        #expect(listStatus == 0, "\(listError)")
        let rows = try inactive.map(jsonObject)
        #expect(rows.map { $0["token"] as? String } == [Self.gone])
        #expect(rows.first?["deactivated_at"] as? Int == 1_700_000_000)
        let (_, active, _) = try ApnTokensTests.tokens(["list", "--active"], store: folder.store)
        let activeRows = try active.map(jsonObject)
        #expect(Set(activeRows.compactMap { $0["token"] as? String }) == [Self.accepted, Self.back])
        #expect(activeRows.first { $0["token"] as? String == Self.back }?["last_feedback_at"] as? Int == 1_700_000_000)
        // Tokens are data in the store, never in a message.
        #expect(!standardError.contains(Self.gone))
    }

    @Test(
        "commits fail: no 410 lost, each in the recovery file; the printed command replays it into the store",
        .enabled(if: PreloadShim.compiler != nil, "no C compiler to build the shim that fails the commits"))
    func storeFails() throws {
        let folder = try ApnTokensTests.Folder()
        try Self.registered(folder)
        let fixture = try Self.gateway()
        let (status, lines, standardError) = try PreloadShim.storeFull { shim in
            try fixture.sendHTTP2(
                [
                    "--certs", fixture.certs, "--store", folder.store, "--alert", "Hi",
                    "--token", Self.accepted, "--token", Self.gone, "--token", Self.back,
                ], environment: shim.environment([PreloadShim.sqliteCommitsBeforeFull: "0"]))
        }
        #expect(status == 1, "\(standardError)")
        let summary = try #require(lines.last)
        #expect(summary["unregistered"] as? Int == 2 && summary["stored"] as? Int == 0, "\(summary)")
        #expect(summary["not_stored"] as? Int == 2, "\(summary)")
        let file = try #require(summary["recovery_file"] as? String, "\(summary)")
        #expect(file.hasPrefix(folder.store + ".feedback-recovery-"))
        let recovered = try ApnFeedbackServiceRecoveryTests.recovered(try String(contentsOfFile: file, encoding: .utf8))
        #expect(Set(recovered) == ["\(Self.gone):1700000000", "\(Self.back):1700000000"])
        #expect(Set(try ApnFeedbackServiceRecoveryTests.recovered(standardError)) == Set(recovered), "and on stderr")
        #expect(try TokenStore(path: folder.store).lookup(try Device(Self.gone))?.isActive == true, "nothing committed")

        let messages = standardError.split(separator: "\n").filter { !$0.hasPrefix("{") }
        let command = try #require(messages.first { $0.hasPrefix("  apn tokens import ") }, "\(messages)")
        let replay = try ApnProcess(command.split(separator: " ").dropFirst().map(String.init))
        let (replayStatus, replayError) = try replay.waitForExit()
        #expect(replayStatus == 0, "\(replayError)")
        let store = try TokenStore(path: folder.store)
        #expect(try store.lookup(try Device(Self.gone))?.isActive == false)
        #expect(try store.lookup(try Device(Self.back))?.isActive == true)
    }

    @Test("a store that cannot be opened: nothing sent, exit 1, the reason on stderr")
    func unusableStore() throws {
        let folder = try ApnTokensTests.Folder()
        let notAStore = try folder.file("not-sqlite", String(repeating: "not a database\n", count: 100))
        let fixture = try Self.gateway()
        let (status, lines, standardError) = try fixture.sendHTTP2([
            "--certs", fixture.certs, "--store", notAStore, "--alert", "Hi", "--token", Self.accepted,
        ])
        #expect(status == 1)
        #expect(standardError.contains("the token store cannot take a write"), "\(standardError)")
        #expect(lines.isEmpty)
        let http2 = try #require(try fixture.stop()["http2"] as? [String: Any])
        #expect(http2["accepted"] as? Int == 0, "nothing sent")
    }
}

/// The same on a PostgreSQL store: there is no folder beside a URL, so the recovery file is
/// written in the current one, and no message shows the URL's password.
@Suite(
    "apn send --http2 --store postgresql://", .threadPerTest, .ownsChildProcesses,
    .enabled(if: PostgresAdmin.testURL != nil, "APN_TEST_POSTGRES_URL is not set: the PostgreSQL recovery file was not tested"))
struct ApnSendHTTP2PostgresStoreTests {
    @Test(
        "commits fail: the 410s go to a recovery file in the current folder, the command to replay them names the store",
        .enabled(if: PreloadShim.compiler != nil, "no C compiler to build the shim that fails the commits"))
    func recoveryInTheCurrentFolder() throws {
        try ApnStoreLocation.with(.postgres) { folder, location in
            let fixture = try ApnSendHTTP2StoreTests.gateway()
            let address = try #require(fixture.http2Address)
            // The first commit is the one opening the store makes (its schema); the batch's fails.
            let (apn, status, standardError) = try PreloadShim.storeFull { shim in
                let apn = try ApnProcess(
                    [
                        "send", "--http2", "--ca", (fixture.certs as NSString).appendingPathComponent("ca.pem"), "--address",
                        address, "--certs", fixture.certs, "--store", location, "--alert", "Hi", "--token",
                        ApnSendHTTP2StoreTests.gone,
                    ], directory: folder.path, environment: shim.environment([PreloadShim.postgresCommitsBeforeFull: "1"]))
                let (status, standardError) = try apn.waitForExit(timeout: 60)
                return (apn, status, standardError)
            }
            #expect(status == 1, "\(standardError)")
            let summary = try jsonObject(try #require(try apn.remainingLines().last))
            let file = try #require(summary["recovery_file"] as? String, "\(summary)")
            #expect(file.hasPrefix("apn.feedback-recovery-") && !file.contains("/"), "\(file)")
            #expect(FileManager.default.fileExists(atPath: (folder.path as NSString).appendingPathComponent(file)))
            #expect(standardError.contains("apn tokens import \(file) --store "), "\(standardError)")
        }
    }
}
