import Foundation
import Testing
import APNTestSupport
import APNTestTraits

/// Issue #27 item 9: a token store other programs can use — tokens checked on registration,
/// `delete`, `count`, `prune`, `export`, and one `feedback-service` polling a store at a time.
@Suite("apn tokens maintenance", .threadPerTest, .ownsChildProcesses)
struct ApnTokensMaintenanceTests {
    static func tokens(_ arguments: [String], store: String?) throws -> (status: Int32, lines: [String], error: String) {
        try ApnTokensTests.tokens(arguments, store: store)
    }

    @Test("register takes 1 to 100 bytes of hex, nothing else; import checks its lines the same way")
    func registerChecksTheToken() throws {
        let folder = try ApnTokensTests.Folder()
        let long = String(repeating: "ab", count: 101)
        let refused = try Self.tokens(["register", long], store: folder.store)
        #expect(refused.status == 2 && refused.error.contains("1 to 100 bytes"), "\(refused.error)")
        #expect(try Self.tokens(["register", "abc"], store: folder.store).status == 2, "odd")
        #expect(try Self.tokens(["register", "ab cd"], store: folder.store).status == 2, "not only hex")
        #expect(try Self.tokens(["register", String(repeating: "ab", count: 100)], store: folder.store).status == 0)
        let file = try folder.file("import.txt", "\(long)\naabb\n")
        let imported = try Self.tokens(["import", file], store: folder.store)
        #expect(imported.status == 1 && imported.lines == [#"{"imported":1,"bad_lines":1}"#], "\(imported)")
        #expect(imported.error.contains("import.txt:1: ") && imported.error.contains("1 to 100 bytes"))
    }

    @Test("count, delete, prune --inactive-before and export answer as JSON lines")
    func maintenance() throws {
        let folder = try ApnTokensTests.Folder()
        let file = try folder.file("tokens.txt", "0011 1700000000 com.example\n0022 1700000000\n0033 1700000000\n0044 1700000000\n")
        #expect(try Self.tokens(["import", file], store: folder.store).status == 0)
        #expect(try Self.tokens(["unregister", "0011", "--at", "1700000100"], store: folder.store).status == 0)
        #expect(try Self.tokens(["unregister", "0022", "--at", "1700000900"], store: folder.store).status == 0)
        let recovery = try folder.file("feedback.jsonl", #"{"event":"feedback","time":1700000050,"token":"0033"}"# + "\n")
        #expect(try Self.tokens(["import", recovery], store: folder.store).status == 0)
        #expect(try Self.tokens(["count"], store: folder.store).lines == [#"{"active":1,"inactive":3,"total":4}"#])

        let exported = try Self.tokens(["export"], store: folder.store)
        #expect(exported.status == 0, "\(exported.error)")
        #expect(exported.lines.first == #"{"record":"token","token":"0011","topic":"com.example","registered_at":1700000000,"active":false,"deactivated_at":1700000100,"last_feedback_at":null}"#)
        #expect(exported.lines.count == 5)
        #expect(exported.lines.last == #"{"record":"feedback","token":"0033","time":1700000050,"read_at":"# + String(try #require(
            try jsonObject(exported.lines[4])["read_at"] as? Int)) + #","applied":"deactivated"}"#)

        // 0011 (1700000100) and 0033 (1700000050) were deactivated before 1700000500; 0022 after.
        let pruned = try Self.tokens(["prune", "--inactive-before", "1700000500"], store: folder.store)
        #expect(pruned.status == 0 && pruned.lines == [#"{"pruned":2}"#], "\(pruned)")
        #expect(try Self.tokens(["count"], store: folder.store).lines == [#"{"active":1,"inactive":1,"total":2}"#])
        #expect(try Self.tokens(["export"], store: folder.store).lines.count == 2, "0033's feedback went with it")
        #expect(try Self.tokens(["prune"], store: folder.store).status == 2, "--inactive-before is required")

        let deleted = try Self.tokens(["delete", "0022", "0044", "0099"], store: folder.store)
        #expect(deleted.status == 1 && deleted.lines == [#"{"deleted":2,"unknown":1}"#], "\(deleted)")
        #expect(deleted.error.contains("unknown token 0099"))
        #expect(try Self.tokens(["count"], store: folder.store).lines == [#"{"active":0,"inactive":0,"total":0}"#])
    }

    @Test("a second feedback-service on the same store exits 1 naming the first; once it has gone, one can start")
    func onePollerPerStore() throws {
        let folder = try ApnTokensTests.Folder()
        let certs = try ApnFeedbackServiceTests.certificates(folder)
        let gateway = try ApnProcess(["mock-gateway", "--certs", certs])
        let address = try #require(try jsonObject(try gateway.nextLine())["feedback"] as? String)
        let arguments = ["feedback-service", "--store", folder.store, "--certs", certs, "--address", address]
        let first = try ApnProcess(arguments + ["--interval", "3600"])
        #expect(try jsonObject(try first.nextLine())["event"] as? String == "visit")

        let second = try ApnProcess(arguments + ["--once"])
        let (status, error) = try second.waitForExit()
        #expect(status == 1)
        #expect(error.contains("another apn feedback-service (pid \(first.pid)) is polling"), "\(error)")
        #expect(try second.remainingLines().isEmpty, "no visit")
        // Another spelling of the same store meets the same lock: a symlink to it.
        let link = (folder.path as NSString).appendingPathComponent("link.sqlite")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: folder.store)
        var linked = arguments
        linked[2] = link
        let viaLink = try ApnProcess(linked + ["--once"])
        let (linkStatus, linkError) = try viaLink.waitForExit()
        #expect(linkStatus == 1 && linkError.contains("is polling"), "\(linkError)")
        #expect(try viaLink.remainingLines().isEmpty, "no visit through the symlink")

        first.send(SIGKILL)
        _ = try first.waitForExit()
        let third = try ApnProcess(arguments + ["--once"])
        #expect(try jsonObject(try third.nextLine())["event"] as? String == "visit", "the kernel released the lock")
        #expect(try third.waitForExit().status == 0)
        gateway.send(SIGTERM)
        #expect(try gateway.waitForExit().status == 0)
    }
}
