import APN
import APNFeedbackStore
import Foundation
import Testing
import APNTestSupport
import APNTestTraits

/// #14 item 2, "nothing lost": `apn feedback-service` SIGKILLed in the middle of a visit that
/// serves 100,000 tuples in small, paced TLS records.
///
/// What the process *acknowledged* reading: with `--log-batches` it writes
/// `{"event":"batch",…,"committed":TOTAL}` (unbuffered, `write(2)`) only after the batch's
/// transaction has committed, so the highest `committed` seen before the kill is how many
/// tuples it declared durable. The test proves, on the store reopened after the kill (SQLite
/// recovering the WAL the dead process left behind; on PostgreSQL too, when a server is set):
/// 1. every tuple acknowledged is in the store: it holds the first `acknowledged` tuples the
///    mock served, and more only when a commit landed before its line was written;
/// 2. the store holds exactly a prefix of what the mock served, in serving order — no gap,
///    so no batch was skipped — and nothing the mock did not serve;
/// 3. nothing is in it twice (each (token, time) is one row, and there are as many rows as
///    distinct tuples);
/// 4. the kill landed mid-visit (fewer than 100,000 tuples stored), and the store opens,
///    reads and takes a new batch afterwards, from this process and from `apn tokens`.
/// Tuples the mock wrote that the process had not yet read are gone — as with Apple's
/// service, which forgets what it sent: nothing can keep those.
@Suite("apn feedback-service: stopped mid-visit", .timeLimit(.minutes(10)), .threadPerTest, .ownsChildProcesses)
struct ApnFeedbackServiceKillTests {
    static let count = 100_000

    /// The n-th tuple the mock serves: a 32-byte token naming n, and a time.
    static func tuple(_ n: Int) -> (token: String, time: Int64) {
        (String(repeating: "5a", count: 28) + String(format: "%08x", n), 1_700_000_000 + Int64(n % 86_400))
    }

    @Test(
        "every acknowledged tuple is in the store, nothing twice, nothing not served; the store opens after",
        arguments: ApnStoreLocation.Backend.available)
    func killMidVisit(_ backend: ApnStoreLocation.Backend) throws {
        try ApnStoreLocation.with(backend, killMidVisit)
    }

    private func killMidVisit(_ folder: ApnTokensTests.Folder, _ location: String) throws {
        let certs = try ApnFeedbackServiceTests.certificates(folder)
        let served = (0..<Self.count).map(Self.tuple)
        let file = try folder.file("feedback.txt", served.map { "\($0.token):\($0.time)" }.joined(separator: "\n"))
        // Some tokens registered before (deactivated by the feedback), so both paths run.
        do {
            let store = try TokenStore(location: location)
            try store.register(stride(from: 0, to: Self.count, by: 10).map {
                TokenStore.Registration(device: try! Device(served[$0].token), at: 1_600_000_000)
            })
        }
        // 100 tuples (3,800 bytes) per TLS record, 2 ms apart: a visit of 1,000 records, ≥ 2 s.
        let gateway = try ApnProcess([
            "mock-gateway", "--certs", certs, "--feedback-file", file,
            "--feedback-write-size", "3800", "--feedback-pause-ms", "2",
        ])
        let address = try #require(try jsonObject(try gateway.nextLine(timeout: 60))["feedback"] as? String)

        let service = try ApnProcess([
            "feedback-service", "--once", "--log-batches", "--batch-size", "500",
            "--store", location, "--certs", certs, "--address", address,
        ])
        // Wait (bounded, on the process's own lines) until it acknowledged 20,000 tuples.
        var acknowledged = 0
        while acknowledged < 20_000 {
            let line = try jsonObject(try service.nextLine(timeout: 30))
            try #require(line["event"] as? String == "batch", "a batch line, not \(line)")
            acknowledged = try #require(line["committed"] as? Int)
        }
        service.send(SIGKILL)
        _ = try service.waitForExit()
        #expect(service.child.termination == .signalled(SIGKILL))
        // Lines written before the kill and not yet taken: the last acknowledgement counts.
        for text in try service.remainingLines() {
            let line = try jsonObject(text)
            #expect(line["event"] as? String == "batch", "the visit never finished: \(text)")
            acknowledged = max(acknowledged, line["committed"] as? Int ?? 0)
        }

        let store = try TokenStore(location: location)
        var stored: [String: Int64] = [:]
        var rows = 0
        try store.feedback { record in
            rows += 1
            stored[record.device.hexString] = record.time
        }
        #expect(rows == stored.count, "nothing in the store twice")
        #expect(try store.feedbackCount() == rows)
        #expect(rows >= acknowledged, "every acknowledged tuple is in the store")
        #expect(rows < Self.count, "the kill landed in the middle of the visit")
        let prefix = served.prefix(rows)
        #expect(prefix.allSatisfy { stored[$0.token] == $0.time },
                "the store holds exactly the first \(rows) tuples served: no gap, nothing not served")
        let registeredAndRead = prefix.indices.filter { $0 % 10 == 0 }.count
        #expect(try store.lookup(try Device(served[0].token))?.isActive == false)
        #expect(try store.counts().inactive == registeredAndRead, "each stored tuple was applied by the rule")

        // The reopened store takes writes, and the CLI reads it.
        let next = Self.tuple(Self.count)
        let applied = try store.apply([Feedback.Entry(unixTime: UInt32(next.time), device: try Device(next.token))],
                                      readAt: 1_800_000_000)
        #expect(applied.unknown == 1)
        let listed = try ApnTokensTests.tokens(["list", "--inactive"], store: location)
        #expect(listed.status == 0 && listed.lines.count == registeredAndRead, "\(listed.error)")

        gateway.send(SIGTERM)
        #expect(try gateway.waitForExit(timeout: 30).status == 0)
    }

    @Test("SIGTERM mid-visit: reading stops, what was read is committed, the visit's line says so, exit 0")
    func terminateMidVisit() throws {
        let folder = try ApnTokensTests.Folder()
        let certs = try ApnFeedbackServiceTests.certificates(folder)
        let served = (0..<20_000).map(Self.tuple)
        let file = try folder.file("feedback.txt", served.map { "\($0.token):\($0.time)" }.joined(separator: "\n"))
        let gateway = try ApnProcess([
            "mock-gateway", "--certs", certs, "--feedback-file", file,
            "--feedback-write-size", "3800", "--feedback-pause-ms", "5",
        ])
        let address = try #require(try jsonObject(try gateway.nextLine(timeout: 60))["feedback"] as? String)
        let service = try ApnProcess([
            "feedback-service", "--interval", "3600", "--log-batches", "--batch-size", "500",
            "--store", folder.store, "--certs", certs, "--address", address,
        ])
        var committed = 0
        while committed < 2_000 {
            committed = try #require(try jsonObject(try service.nextLine(timeout: 30))["committed"] as? Int)
        }
        service.send(SIGTERM)
        let (status, error) = try service.waitForExit(timeout: 30)
        #expect(status == 0, "\(error)")
        let lines = try service.remainingLines().map(jsonObject)
        let visit = try #require(lines.last)
        #expect(visit["event"] as? String == "visit")
        #expect(visit["stopped"] as? Bool == true)
        let read = try #require(visit["read"] as? Int)
        #expect(read >= committed && read < served.count, "stopped in the middle")
        let store = try TokenStore(path: folder.store)
        #expect(try store.feedbackCount() == read, "everything it read was committed before it exited")
        gateway.send(SIGTERM)
        #expect(try gateway.waitForExit(timeout: 30).status == 0)
    }
}
