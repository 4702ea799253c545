import APN
import APNFeedbackStore
import CSQLite
import Foundation
import Testing
import APNTestSupport
import APNTestTraits

/// #25 item 4, "the feedback service never consumes what it cannot commit": Apple's service
/// serves each tuple once, and a full disk used to lose every tuple of the visit. Here the
/// store's commits fail after the tuples were handed over (SQLITE_FULL at COMMIT from a
/// preloaded shim, ``PreloadShim/storeFull(_:)``, as any machine with a C compiler can run;
/// `ApnFeedbackServiceFullDiskTests` fills a real tmpfs where it may mount one), or the
/// store cannot take a write before the visit (another connection holds its write lock). Every tuple the mock served must end in the store or in the recovery output,
/// and a store that cannot be written must not be visited for.
@Suite("apn feedback-service: a store that cannot commit", .threadPerTest, .ownsChildProcesses)
struct ApnFeedbackServiceRecoveryTests {
    static let count = 5_000

    /// The n-th tuple the mock serves.
    static func tuple(_ n: Int) -> (token: String, time: Int64) {
        (String(repeating: "3c", count: 28) + String(format: "%08x", n), 1_700_000_000 + Int64(n))
    }

    /// A registration before the last tuple's time (deactivated by it) and one after the
    /// second last's (kept): both in the part the injected failure leaves uncommitted, so the
    /// replay must apply Apple's rule as the service would have.
    static let deactivated = tuple(count - 1)
    static let kept = tuple(count - 2)

    /// A mock serving the 5,000 tuples, a store with two registrations, and the certificates.
    struct Setup {
        let folder: ApnTokensTests.Folder
        let certs: String
        let gateway: ApnProcess
        let address: String
        var store: String { folder.store }

        init(store path: String? = nil) throws {
            folder = try ApnTokensTests.Folder()
            certs = try ApnFeedbackServiceTests.certificates(folder)
            let lines = (0..<ApnFeedbackServiceRecoveryTests.count).map(ApnFeedbackServiceRecoveryTests.tuple)
                .map { "\($0.token):\($0.time)" }
            let file = try folder.file("feedback.txt", lines.joined(separator: "\n"))
            gateway = try ApnProcess(["mock-gateway", "--certs", certs, "--feedback-file", file])
            address = try #require(try jsonObject(try gateway.nextLine())["feedback"] as? String)
        }

        /// Registers the two tokens in the store at `path`.
        static func register(in path: String) throws {
            let store = try TokenStore(path: path)
            try store.register(try Device(deactivated.token), at: deactivated.time - 100)
            try store.register(try Device(kept.token), at: kept.time + 100)
        }

        /// `apn feedback-service` against the mock, with `extra` flags.
        func service(_ extra: [String], store: String? = nil, environment: [String: String] = [:]) throws -> ApnProcess {
            try ApnProcess(
                ["feedback-service", "--store", store ?? self.store, "--certs", certs, "--address", address] + extra,
                environment: environment)
        }

        /// Stops the mock; returns how many feedback connections it served.
        func stopGateway() throws -> Int? {
            gateway.send(SIGTERM)
            let summary = try jsonObject(try gateway.nextLine())
            #expect(try gateway.waitForExit().status == 0)
            return summary["feedback_connections"] as? Int
        }
    }

    /// Every (token, time) the store holds as feedback.
    static func stored(_ path: String) throws -> Set<String> {
        var tuples = Set<String>()
        try TokenStore(path: path).feedback { tuples.insert("\($0.device.hexString):\($0.time)") }
        return tuples
    }

    /// The feedback JSON lines of `text`, as "token:time".
    static func recovered(_ text: String) throws -> [String] {
        try text.split(separator: "\n").filter { $0.hasPrefix("{") }.map { line in
            let object = try jsonObject(String(line))
            #expect(object["event"] as? String == "feedback" && object["date"] is String, "\(line)")
            return "\(try #require(object["token"] as? String)):\(try #require(object["time"] as? Int))"
        }
    }

    static var served: Set<String> { Set((0..<count).map(tuple).map { "\($0.token):\($0.time)" }) }

    /// Checks the replayed store: every tuple once, and Apple's rule applied to the two tokens.
    static func expectComplete(_ path: String) throws {
        #expect(try stored(path) == served)
        let store = try TokenStore(path: path)
        let gone = try #require(try store.lookup(try Device(deactivated.token)))
        #expect(!gone.isActive && gone.deactivatedAt == deactivated.time)
        let stays = try #require(try store.lookup(try Device(kept.token)))
        #expect(stays.isActive && stays.lastFeedbackAt == kept.time)
    }

    @Test(
        "commits fail after the tuples were handed over: each is in the store or the recovery output, once; the printed replay command completes the store",
        .enabled(if: PreloadShim.compiler != nil, "no C compiler to build the shim that fails the commits"))
    func commitFailsMidVisit() throws {
        let setup = try Setup()
        try Setup.register(in: setup.store)
        let (visit, status, error) = try PreloadShim.storeFull { shim in
            let service = try setup.service(
                ["--once", "--batch-size", "1000"], environment: shim.environment([PreloadShim.sqliteCommitsBeforeFull: "2"]))
            let visit = try jsonObject(try service.nextLine())
            let (status, error) = try service.waitForExit()
            return (visit, status, error)
        }
        #expect(status == 1)
        #expect(visit["event"] as? String == "visit_failed", "\(visit)")
        #expect((visit["error"] as? String)?.contains("full") == true, "\(visit)")
        let file = try #require(visit["recovery_file"] as? String, "\(visit)")
        #expect(file.hasPrefix(setup.store + ".feedback-recovery-") && file.hasSuffix(".jsonl"))

        // Committed and recovered: disjoint, and together every tuple served.
        let committed = try Self.stored(setup.store)
        let onStandardError = try Self.recovered(error)
        let inFile = try Self.recovered(try String(contentsOfFile: file, encoding: .utf8))
        #expect(inFile == onStandardError, "the file holds what standard error shows")
        #expect(visit["not_committed"] as? Int == inFile.count)
        #expect(visit["read"] as? Int == committed.count)
        #expect(!committed.isEmpty && !inFile.isEmpty, "two commits landed, then the rest failed")
        #expect(committed.isDisjoint(with: inFile) && Set(inFile).count == inFile.count)
        #expect(committed.union(inFile) == Self.served, "nothing lost")
        // The tokens are the operator's data in the JSON lines, never in a message line.
        let messages = error.split(separator: "\n").filter { !$0.hasPrefix("{") }
        #expect(!messages.contains { $0.contains("3c3c3c3c") })

        // The command the service printed, run as printed.
        let command = try #require(messages.first { $0.hasPrefix("  apn tokens import ") }, "\(messages)")
        let arguments = command.split(separator: " ").dropFirst().map(String.init)
        #expect(arguments == ["tokens", "import", file, "--store", setup.store])
        let replay = try ApnProcess(arguments)
        let (replayStatus, replayError) = try replay.waitForExit()
        #expect(replayStatus == 0, "\(replayError)")
        let imported = try jsonObject(try #require(try replay.remainingLines().first))
        #expect(imported["feedback"] as? Int == inFile.count && imported["duplicates"] as? Int == 0)
        #expect(imported["deactivated"] as? Int == 1 && imported["kept"] as? Int == 1)
        try Self.expectComplete(setup.store)

        // Replaying twice changes nothing.
        let again = try ApnTokensTests.tokens(["import", file], store: setup.store)
        #expect(again.status == 0)
        #expect(try jsonObject(try #require(again.lines.first))["duplicates"] as? Int == inFile.count)
        #expect(try setup.stopGateway() == 1)
    }

    /// Holds the store's write lock from another connection until released.
    final class WriteLock {
        private var handle: OpaquePointer?

        init(_ path: String) throws {
            #expect(sqlite3_open(path, &handle) == SQLITE_OK)
            #expect(sqlite3_exec(handle, "BEGIN IMMEDIATE", nil, nil, nil) == SQLITE_OK)
        }

        func release() {
            guard let handle else { return }
            sqlite3_exec(handle, "ROLLBACK", nil, nil, nil)
            sqlite3_close(handle)
            self.handle = nil
        }

        deinit { release() }
    }

    @Test("--once with a store that cannot take a write: no connection, exit 1 with the reason; once it can, the tuples are all there")
    func onceRefusesAnUnwritableStore() throws {
        let setup = try Setup()
        try Setup.register(in: setup.store)
        let lock = try WriteLock(setup.store)
        let refused = try setup.service(["--once"])
        let skipped = try jsonObject(try refused.nextLine())
        let (status, error) = try refused.waitForExit()
        #expect(status == 1)
        #expect(skipped["event"] as? String == "visit_skipped" && skipped["retry_in"] == nil, "\(skipped)")
        #expect((skipped["error"] as? String)?.contains("locked") == true, "\(skipped)")
        #expect(error.contains("cannot take a write") && error.contains("Not connecting"), "\(error)")

        lock.release()
        let visit = try setup.service(["--once"])
        let line = try jsonObject(try visit.nextLine())
        #expect(try visit.waitForExit().status == 0)
        #expect(line["event"] as? String == "visit" && line["read"] as? Int == Self.count, "\(line)")
        try Self.expectComplete(setup.store)
        #expect(try setup.stopGateway() == 1, "the refused run never connected")
    }

    @Test("polling: while the store cannot take a write there is no visit, said once; when it can, one visit takes every tuple and that is said once")
    func pollingWaitsForTheStore() throws {
        let setup = try Setup()
        try Setup.register(in: setup.store)
        let lock = try WriteLock(setup.store)
        let service = try setup.service(["--interval", "1"])
        let first = try jsonObject(try service.nextLine())
        #expect(first["event"] as? String == "visit_skipped" && first["retry_in"] as? Int == 1, "\(first)")
        lock.release()
        var line = try jsonObject(try service.nextLine())
        while line["event"] as? String == "visit_skipped" { line = try jsonObject(try service.nextLine()) }
        #expect(line["event"] as? String == "visit" && line["read"] as? Int == Self.count, "\(line)")
        service.send(SIGTERM)
        let (status, error) = try service.waitForExit()
        #expect(status == 0, "\(error)")
        let messages = error.split(separator: "\n")
        #expect(messages.filter { $0.contains("cannot take a write") }.count == 1, "\(error)")
        #expect(messages.filter { $0.contains("can be written again") }.count == 1, "\(error)")
        try Self.expectComplete(setup.store)
        #expect(try setup.stopGateway() == 1, "no connection while the store was locked")
    }
}
