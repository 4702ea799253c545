import APN
import APNFeedbackStore
import Foundation
import Testing
import APNTestSupport
import APNTestTraits

/// #25 item 4 on a real full disk: the store on a small tmpfs, filled with a file of zeros.
/// Needs mount(2); skipped where this process may not mount (``Tmpfs/canMount``).
@Suite(
    "apn feedback-service: a full disk", .threadPerTest, .ownsChildProcesses,
    .enabled(if: Tmpfs.canMount, "needs permission to mount a tmpfs"))
struct ApnFeedbackServiceFullDiskTests {
    typealias Recovery = ApnFeedbackServiceRecoveryTests

    @Test("too little room for a commit: the check refuses before connecting, naming the disk; with room again the visit takes every tuple")
    func checkRefusesAFullDisk() throws {
        let setup = try Recovery.Setup()
        let disk = try Tmpfs(bytes: 16 << 20)
        let store = disk.path + "/tokens.sqlite"
        try Recovery.Setup.register(in: store)
        // Room for SQLite to open the file (its -shm), not for the 8,192,000 bytes (8 KiB a
        // tuple) the check asks for before a 1,000-tuple batch.
        let filler = disk.fill("filler", leaving: 512 << 10)
        let refused = try setup.service(["--once"], store: store)
        let skipped = try jsonObject(try refused.nextLine())
        let (status, error) = try refused.waitForExit()
        #expect(status == 1)
        #expect(skipped["event"] as? String == "visit_skipped", "\(skipped)")
        #expect((skipped["error"] as? String)?.contains("less than 8192000 bytes free") == true, "\(skipped)")
        #expect(error.contains("Not connecting"), "\(error)")
        #expect(!FileManager.default.fileExists(atPath: store + ".write-check"), "the scratch file is removed")

        #expect(unlink(filler) == 0)
        let visit = try setup.service(["--once"], store: store)
        let line = try jsonObject(try visit.nextLine())
        #expect(try visit.waitForExit().status == 0)
        #expect(line["event"] as? String == "visit" && line["read"] as? Int == Recovery.count, "\(line)")
        try Recovery.expectComplete(store)
        #expect(try setup.stopGateway() == 1, "the refused run never connected")
    }

    @Test("the disk fills after the check: the commit fails, the recovery file cannot be written either, standard error holds every tuple and replaying it completes the store")
    func diskFullAtCommit() throws {
        let setup = try Recovery.Setup()
        let disk = try Tmpfs(bytes: 16 << 20)
        let store = disk.path + "/tokens.sqlite"
        try Recovery.Setup.register(in: store)
        // This connection keeps the WAL and its index in place (allocated) while the disk is
        // full, so the service opens the store and fails where a full disk fails it: COMMIT.
        let holder = try TokenStore(path: store)
        let filler = disk.fill("filler")
        // --min-free 0: the check proves the lock only, as if the disk filled right after it.
        let service = try setup.service(["--once", "--min-free", "0"], store: store)
        let visit = try jsonObject(try service.nextLine())
        let (status, error) = try service.waitForExit()
        #expect(status == 1)
        #expect(visit["event"] as? String == "visit_failed" && visit["read"] as? Int == 0, "\(visit)")
        #expect((visit["error"] as? String)?.contains("SQLite 13") == true, "SQLITE_FULL: \(visit)")
        #expect(visit["recovery_file"] is NSNull, "a full disk takes no recovery file: \(visit)")
        #expect(error.contains("only copy"), "\(error)")
        let recovered = try Recovery.recovered(error)
        #expect(recovered.count == Recovery.count && Set(recovered) == Recovery.served, "nothing lost")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: disk.path).filter { $0.contains("recovery") }
        #expect(leftovers.isEmpty, "a partial recovery file is removed: \(leftovers)")

        // Room again: what standard error held, saved and replayed, completes the store.
        #expect(unlink(filler) == 0)
        _ = holder
        let lines = error.split(separator: "\n").filter { $0.hasPrefix("{") }  // grep '^{', as the message says
        let saved = try setup.folder.file("recovered.jsonl", lines.joined(separator: "\n"))
        let replay = try ApnTokensTests.tokens(["import", saved], store: store)
        #expect(replay.status == 0, "\(replay.error)")
        let imported = try jsonObject(try #require(replay.lines.first))
        #expect(imported["feedback"] as? Int == Recovery.count, "\(imported)")
        try Recovery.expectComplete(store)
        #expect(try setup.stopGateway() == 1)
    }
}
