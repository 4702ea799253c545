import APN
import APNFeedbackStore
import APNTLS
import Foundation
import Testing
import APNTestSupport
import APNTestTraits

/// #42 for `apn feedback-service --admin HOST:PORT`: the start line names the listener,
/// `/healthz` and `/readyz` answer while it polls, `/metrics` (checked by ``AdminClient``'s
/// strict reading and promtool) counts its visits and tuples, and a stop turns `/readyz` to
/// 503 until the process is gone.
@Suite("apn feedback-service --admin", .threadPerTest, .ownsChildProcesses)
struct ApnFeedbackServiceAdminTests {
    @Test("after a visit: the visit, its tuples, the lease, the last success and the push certificate in /metrics")
    func afterAVisit() throws {
        let folder = try ApnTokensTests.Folder()
        let certs = try ApnFeedbackServiceTests.certificates(folder)
        do {
            let store = try TokenStore(path: folder.store)
            try store.register(try Device(ApnFeedbackServiceTests.before), at: 1_700_000_000)
        }
        let tuples = [ApnFeedbackServiceTests.before, ApnFeedbackServiceTests.after, ApnFeedbackServiceTests.unknown]
        let file = try folder.file("feedback.txt", tuples.map { "\($0):1700000100" }.joined(separator: "\n"))
        let gateway = try ApnProcess(["mock-gateway", "--certs", certs, "--feedback-file", file])
        let address = try #require(try jsonObject(try gateway.nextLine())["feedback"] as? String)
        let service = try ApnProcess([
            "feedback-service", "--store", folder.store, "--certs", certs, "--address", address, "--interval", "3600",
            "--admin", "127.0.0.1:0",
        ])
        let started = try jsonObject(try service.nextLine())
        #expect(started["event"] as? String == "started", "\(started)")
        let port = try AdminClient.port(started["admin"] as? String)
        let visit = try jsonObject(try service.nextLine())
        #expect(visit["event"] as? String == "visit" && visit["read"] as? Int == 3, "\(visit)")

        #expect(try AdminClient.get(port, path: "/healthz") == (200, "ok\n"))
        #expect(try AdminClient.get(port, path: "/readyz") == (200, "ready\n"))
        let metrics = try AdminClient.get(port, path: "/metrics")
        #expect(metrics.status == 200)
        let value = { (sample: String) in AdminClient.value(metrics.body, sample) }
        #expect(value("apn_feedback_visits_total") == 1, "\(metrics.body)")
        #expect(value("apn_feedback_failures_total") == 0)
        #expect(value("apn_feedback_skipped_visits_total") == 0)
        #expect(value("apn_feedback_tuples_read_total") == 3)
        #expect(value("apn_feedback_tuples_applied_total") == 3)
        #expect(value("apn_feedback_tokens_deactivated_total") == 1, "the one registered before the feedback time")
        #expect(value("apn_feedback_lease_held") == 1, "SQLite: the lock file is held from the start")
        let visitTime = try #require(visit["time"] as? Int)
        #expect(try #require(value("apn_feedback_last_success_timestamp_seconds")) >= Double(visitTime), "ended after it began")
        let client = try #require(try TLSCertificate.certificates(
            fromPEM: Array(try Data(contentsOf: URL(fileURLWithPath: "\(certs)/client.pem")))).first)
        #expect(value(#"apn_certificate_expiry_timestamp_seconds{certificate="client"}"#) == client.notAfter.timeIntervalSince1970)
        #expect(value("process_threads") ?? 0 > 0)
        try AdminClient.checkExposition(metrics.body)

        service.send(SIGTERM)
        _ = try AdminClient.expectStops(service, adminPort: port)
        gateway.send(SIGTERM)
        #expect(try gateway.waitForExit().status == 0)
    }

    @Test("failed visits are counted, no success yet reads 0, and the service stays ready while it retries")
    func failedVisits() throws {
        let folder = try ApnTokensTests.Folder()
        let certs = try ApnFeedbackServiceTests.certificates(folder)
        let address = "127.0.0.1:\(try PlainSockets.unusedPort())"
        let service = try ApnProcess([
            "feedback-service", "--store", folder.store, "--certs", certs, "--address", address, "--interval", "60",
            "--admin", "127.0.0.1:0",
        ])
        let port = try AdminClient.port(try jsonObject(try service.nextLine())["admin"] as? String)
        #expect(try jsonObject(try service.nextLine())["event"] as? String == "visit_failed")

        #expect(try AdminClient.get(port, path: "/readyz") == (200, "ready\n"), "retrying is running")
        let metrics = try AdminClient.get(port, path: "/metrics").body
        let failures = try #require(AdminClient.value(metrics, "apn_feedback_failures_total"), "\(metrics)")
        #expect(failures >= 1)
        // Both counted before each visit's line; a later visit may have failed meanwhile.
        #expect(try #require(AdminClient.value(metrics, "apn_feedback_visits_total")) >= failures)
        #expect(AdminClient.value(metrics, "apn_feedback_tuples_read_total") == 0)
        #expect(AdminClient.value(metrics, "apn_feedback_last_success_timestamp_seconds") == 0)
        try AdminClient.checkExposition(metrics)

        service.send(SIGTERM)
        _ = try AdminClient.expectStops(service, adminPort: port)
    }

    @Test("--admin is in --help; a malformed address is a usage error")
    func flag() throws {
        let help = try ApnProcess(["feedback-service", "--help"])
        #expect(try help.waitForExit().status == 0)
        #expect(try help.remainingLines().contains { $0.contains("--admin HOST:PORT") })
        let folder = try ApnTokensTests.Folder()
        let bad = try ApnProcess(["feedback-service", "--store", folder.store, "--certs", folder.path, "--admin", "nowhere"])
        let (status, error) = try bad.waitForExit()
        #expect(status == 2 && error.contains("--admin"), "\(error)")
    }
}
