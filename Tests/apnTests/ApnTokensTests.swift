import Foundation
import Testing
import APNTestSupport
import APNTestTraits

/// `apn tokens`: the store `apn feedback-service` writes, from the command line.
@Suite("apn tokens", .threadPerTest, .ownsChildProcesses)
struct ApnTokensTests {
    /// A temporary folder with a store path in it, removed at the end of the test.
    final class Folder {
        let path: String
        var store: String { (path as NSString).appendingPathComponent("tokens.sqlite") }

        init() throws {
            path = (NSTemporaryDirectory() as NSString).appendingPathComponent("apnTests-\(UUID().uuidString)")
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        }

        deinit { try? FileManager.default.removeItem(atPath: path) }

        func file(_ name: String, _ text: String) throws -> String {
            let file = (path as NSString).appendingPathComponent(name)
            try text.write(toFile: file, atomically: false, encoding: .utf8)
            return file
        }
    }

    /// Runs `apn tokens ARGUMENTS --store STORE`: status, standard output lines, standard error.
    static func tokens(_ arguments: [String], store: String?) throws -> (status: Int32, lines: [String], error: String) {
        let apn = try ApnProcess(["tokens"] + arguments + (store.map { ["--store", $0] } ?? []))
        let (status, error) = try apn.waitForExit()
        return (status, try apn.remainingLines(), error)
    }

    @Test("register, show, unregister and list answer as JSON lines")
    func registerShowUnregisterList() throws {
        let folder = try Folder()
        let registered = try Self.tokens(["register", "aabb", "--topic", "com.example", "--at", "1700000000"], store: folder.store)
        #expect(registered.status == 0, "\(registered.error)")
        #expect(registered.lines == [
            #"{"token":"aabb","topic":"com.example","registered_at":1700000000,"active":true,"deactivated_at":null,"last_feedback_at":null}"#,
        ])
        #expect(try Self.tokens(["register", "ccdd", "--at", "2023-11-14T22:13:21Z"], store: folder.store).status == 0)
        let shown = try Self.tokens(["show", "ccdd"], store: folder.store)
        #expect(try jsonObject(try #require(shown.lines.first))["registered_at"] as? Int == 1_700_000_001)

        let unregistered = try Self.tokens(["unregister", "aabb", "--at", "1700000100"], store: folder.store)
        #expect(unregistered.status == 0)
        let record = try jsonObject(try #require(unregistered.lines.first))
        #expect(record["active"] as? Bool == false && record["deactivated_at"] as? Int == 1_700_000_100)

        let inactive = try Self.tokens(["list", "--inactive"], store: folder.store)
        #expect(try inactive.lines.map { try jsonObject($0)["token"] as? String } == ["aabb"])
        let active = try Self.tokens(["list", "--active"], store: folder.store)
        #expect(try active.lines.map { try jsonObject($0)["token"] as? String } == ["ccdd"])
        #expect(try Self.tokens(["list"], store: folder.store).lines.count == 2)
    }

    @Test("show and unregister of an unknown token exit 1 with \"unknown token\"")
    func unknownToken() throws {
        let folder = try Folder()
        for command in ["show", "unregister"] {
            let result = try Self.tokens([command, "eeff"], store: folder.store)
            #expect(result.status == 1)
            #expect(result.lines.isEmpty)
            #expect(result.error.contains("unknown token eeff"))
        }
    }

    @Test("import registers the good lines in one go and reports each bad one with its line number")
    func importWithBadLines() throws {
        let folder = try Folder()
        let file = try folder.file("tokens.txt", """
            # TOKEN [TIME [TOPIC]]

            0011 1700000000 com.example
            not-a-token
            0022
            0033 yesterday
            0044 - com.example
            """)
        let result = try Self.tokens(["import", file], store: folder.store)
        #expect(result.status == 1, "some lines were bad")
        #expect(result.lines == [#"{"imported":3,"bad_lines":2}"#])
        #expect(result.error.contains("tokens.txt:4: "))
        #expect(result.error.contains("tokens.txt:6: "))
        let listed = try Self.tokens(["list"], store: folder.store)
        #expect(try listed.lines.map { try jsonObject($0)["token"] as? String } == ["0011", "0022", "0044"])
        #expect(try jsonObject(listed.lines[0])["topic"] as? String == "com.example")
    }

    @Test("import applies feedback JSON lines (a feedback-service recovery file) by Apple's rule, beside registrations; bad ones are reported")
    func importFeedbackLines() throws {
        let folder = try Folder()
        #expect(try Self.tokens(["register", "0011", "--at", "1700000000"], store: folder.store).status == 0)
        let file = try folder.file("recovery.jsonl", """
            {"event":"feedback","time":1700000100,"date":"2023-11-14T22:15:00Z","token":"0011"}
            {"event":"feedback","time":1700000100,"token":"0022"}
            0022 1700000500
            {"event":"feedback","time":1700000100,"token":"0033"}
            {"event":"feedback","time":1.5,"token":"0044"}
            {"event":"visit","time":1,"token":"0044"}
            {"event":"feedback","time":1,"token":"0044","topic":"x"}
            {"event":"feedback","time":1,"token":"zz"}
            {"event":
            """)
        let result = try Self.tokens(["import", file], store: folder.store)
        #expect(result.status == 1, "some lines were bad")
        #expect(result.lines == [
            #"{"imported":1,"feedback":3,"deactivated":1,"kept":1,"unknown":1,"duplicates":0,"bad_lines":5}"#,
        ])
        for line in 5...9 { #expect(result.error.contains("recovery.jsonl:\(line): "), "\(result.error)") }
        let inactive = try Self.tokens(["list", "--inactive"], store: folder.store)
        #expect(try inactive.lines.map { try jsonObject($0)["token"] as? String } == ["0011"])
        let kept = try jsonObject(try #require(try Self.tokens(["show", "0022"], store: folder.store).lines.first))
        #expect(kept["active"] as? Bool == true && kept["last_feedback_at"] as? Int == 1_700_000_100)
    }

    @Test("bad usage exits 2; a file that is not a store exits 1 with the store's message")
    func usageAndStoreErrors() throws {
        let folder = try Folder()
        #expect(try Self.tokens(["list"], store: nil).status == 2)
        #expect(try Self.tokens([], store: folder.store).status == 2)
        #expect(try Self.tokens(["list", "--active", "--inactive"], store: folder.store).status == 2)
        #expect(try Self.tokens(["register", "zz"], store: folder.store).status == 2)
        #expect(try Self.tokens(["register", "aa", "--at", "soon"], store: folder.store).status == 2)
        #expect(try Self.tokens(["show", "--help"], store: nil).status == 0)
        let garbage = try folder.file("garbage.sqlite", String(repeating: "not a database ", count: 100))
        let corrupt = try Self.tokens(["list"], store: garbage)
        #expect(corrupt.status == 1)
        #expect(corrupt.error.contains("not a usable SQLite database"))
    }
}
