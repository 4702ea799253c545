import APN
import APNFeedbackStore
import Foundation
import Testing
import APNTestSupport
import APNTestTraits

/// `apn feedback-service` against `apn mock-gateway`: what the store answers afterwards, and
/// a failed visit followed by more.
@Suite("apn feedback-service", .threadPerTest, .ownsChildProcesses)
struct ApnFeedbackServiceTests {
    static let before = String(repeating: "aa", count: 32)
    static let after = String(repeating: "bb", count: 32)
    static let unknown = String(repeating: "cc", count: 32)

    /// `apn certs` into a new folder (with the store path beside them).
    static func certificates(_ folder: ApnTokensTests.Folder) throws -> String {
        let certs = (folder.path as NSString).appendingPathComponent("certs")
        #expect(try ApnProcess(["certs", certs]).waitForExit().status == 0)
        return certs
    }

    @Test("registered before the feedback time: deactivated; after: kept; unknown: recorded only")
    func storeAnswersAfterAVisit() throws {
        let folder = try ApnTokensTests.Folder()
        let certs = try Self.certificates(folder)
        do {
            let store = try TokenStore(path: folder.store)
            try store.register(try Device(Self.before), at: 1_700_000_000)
            try store.register(try Device(Self.after), at: 1_700_000_500)
        }
        let tuples = try folder.file("feedback.txt", [Self.before, Self.after, Self.unknown].map { "\($0):1700000100" }
            .joined(separator: "\n"))
        let gateway = try ApnProcess(["mock-gateway", "--certs", certs, "--feedback-file", tuples])
        let address = try #require(try jsonObject(try gateway.nextLine())["feedback"] as? String)
        let arguments = ["feedback-service", "--once", "--store", folder.store, "--certs", certs, "--address", address]

        let service = try ApnProcess(arguments)
        let visit = try jsonObject(try service.nextLine())
        let (status, error) = try service.waitForExit()
        #expect(status == 0, "\(error)")
        #expect(visit["event"] as? String == "visit")
        #expect(visit["read"] as? Int == 3 && visit["deactivated"] as? Int == 1)
        #expect(visit["kept"] as? Int == 1 && visit["unknown"] as? Int == 1 && visit["duplicates"] as? Int == 0)

        let again = try ApnProcess(arguments)
        #expect(try jsonObject(try again.nextLine())["read"] as? Int == 0, "the service served them once")
        #expect(try again.waitForExit().status == 0)

        let store = try TokenStore(path: folder.store)
        let deactivated = try #require(try store.lookup(try Device(Self.before)))
        #expect(!deactivated.isActive && deactivated.deactivatedAt == 1_700_000_100)
        let kept = try #require(try store.lookup(try Device(Self.after)))
        #expect(kept.isActive && kept.lastFeedbackAt == 1_700_000_100 && kept.registeredAt == 1_700_000_500)
        #expect(try store.lookup(try Device(Self.unknown)) == nil)
        var outcomes: [String: FeedbackRecord.Outcome] = [:]
        try store.feedback { outcomes[$0.device.hexString] = $0.outcome }
        #expect(outcomes == [Self.before: .deactivated, Self.after: .kept, Self.unknown: .unknown])

        let inactive = try ApnTokensTests.tokens(["list", "--inactive"], store: folder.store)
        #expect(try inactive.lines.map { try jsonObject($0)["token"] as? String } == [Self.before])
        let shown = try ApnTokensTests.tokens(["show", Self.unknown], store: folder.store)
        #expect(shown.status == 1 && shown.error.contains("unknown token"))

        gateway.send(SIGTERM)
        #expect(try gateway.waitForExit().status == 0)
    }

    @Test("SIGTERM while a visit waits on a slow service: what was read is kept, the visit's line says stopped, exit 0")
    func stopMidVisit() throws {
        let folder = try ApnTokensTests.Folder()
        let certs = try Self.certificates(folder)
        let tuples = (0..<3).map { n in String(repeating: "7b", count: 31) + String(format: "%02x", n) + ":\(1_700_000_000 + n)" }
        let file = try folder.file("feedback.txt", tuples.joined(separator: "\n"))
        // One 38-byte tuple per TLS record, then a minute before the next one.
        let gateway = try ApnProcess([
            "mock-gateway", "--certs", certs, "--feedback-file", file,
            "--feedback-write-size", "38", "--feedback-pause-ms", "60000",
        ])
        let address = try #require(try jsonObject(try gateway.nextLine(timeout: 60))["feedback"] as? String)
        let service = try ApnProcess([
            "feedback-service", "--once", "--log-batches", "--batch-size", "1",
            "--store", folder.store, "--certs", certs, "--address", address,
        ])
        let batch = try jsonObject(try service.nextLine(timeout: 30))
        #expect(batch["event"] as? String == "batch" && batch["committed"] as? Int == 1, "\(batch)")
        service.send(SIGTERM)  // the visit is waiting for the next record: the stop wakes it
        let visit = try jsonObject(try service.nextLine(timeout: 20))
        #expect(visit["event"] as? String == "visit" && visit["read"] as? Int == 1, "\(visit)")
        #expect(visit["stopped"] as? Bool == true, "\(visit)")
        let (status, error) = try service.waitForExit(timeout: 20)
        #expect(status == 0, "\(error)")
        var kept: [String] = []
        try TokenStore(path: folder.store).feedback { kept.append($0.device.hexString) }
        #expect(kept == [String(tuples[0].prefix(64))], "the tuple read before the stop was committed")
    }

    @Test("a failed visit is logged, backed off and tried again; SIGTERM while waiting exits 0")
    func failedVisitsGoOn() throws {
        let folder = try ApnTokensTests.Folder()
        let certs = try Self.certificates(folder)
        // A port that was just free: nothing listens there.
        let gateway = try ApnProcess(["mock-gateway", "--certs", certs])
        let address = try #require(try jsonObject(try gateway.nextLine())["feedback"] as? String)
        gateway.send(SIGTERM)
        #expect(try gateway.waitForExit().status == 0)

        let service = try ApnProcess([
            "feedback-service", "--store", folder.store, "--certs", certs, "--address", address, "--interval", "60",
        ])
        let first = try jsonObject(try service.nextLine())
        #expect(first["event"] as? String == "visit_failed")
        #expect(first["retry_in"] as? Int == 1)
        #expect((first["error"] as? String)?.isEmpty == false)
        let second = try jsonObject(try service.nextLine())
        #expect(second["event"] as? String == "visit_failed")
        #expect(second["retry_in"] as? Int == 2, "the wait doubles")
        service.send(SIGTERM)
        let (status, error) = try service.waitForExit()
        #expect(status == 0, "\(error)")
    }

    @Test("unusable credentials end the service with status 1; bad options with 2")
    func credentialsAndUsage() throws {
        let folder = try ApnTokensTests.Folder()
        let missing = try ApnProcess([
            "feedback-service", "--store", folder.store, "--cert", "/nonexistent/c.pem", "--key", "/nonexistent/k.pem",
            "--address", "127.0.0.1:9",
        ])
        let (status, _) = try missing.waitForExit()
        #expect(status == 1)
        #expect(try missing.remainingLines().first?.contains("/nonexistent/c.pem") == true)
        #expect(try ApnProcess(["feedback-service", "--once"]).waitForExit().status == 2, "--store is required")
        #expect(try ApnProcess(["feedback-service", "--store", folder.store, "--once", "--interval", "5"])
            .waitForExit().status == 2)
    }
}
