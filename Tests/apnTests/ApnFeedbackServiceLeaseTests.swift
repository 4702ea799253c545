import Foundation
import Testing
import APNTestSupport
import APNTestTraits

/// `apn feedback-service` on a PostgreSQL store: one service polls at a time, through the
/// store's lease; the others wait as hot standbys and one takes over when the holder dies.
@Suite(
    "apn feedback-service: the PostgreSQL lease", .ownsChildProcesses,
    .enabled(
        if: PostgresAdmin.testURL != nil,
        "APN_TEST_POSTGRES_URL is not set: the PostgreSQL lease was not tested (scripts/postgres-test-cluster starts a server)"),
    // One at a time: a test ends lease sessions by their application_name.
    .serialized)
struct ApnFeedbackServiceLeaseTests {
    /// A schema of its own on the test server (dropped at the end), certificates and a mock gateway.
    final class Fixture {
        let schema = "apn_lease_\(UInt32.random(in: 0...UInt32.max))"
        let folder: ApnTokensTests.Folder
        let gateway: ApnProcess
        /// `apn feedback-service` on the schema's store against the gateway.
        let arguments: [String]

        init() throws {
            let store = try PostgresAdmin.location(schema: schema)
            folder = try ApnTokensTests.Folder()
            let certs = try ApnFeedbackServiceTests.certificates(folder)
            gateway = try ApnProcess(["mock-gateway", "--certs", certs])
            let address = try #require(try jsonObject(try gateway.nextLine())["feedback"] as? String)
            arguments = ["feedback-service", "--store", store, "--certs", certs, "--address", address]
        }

        deinit { PostgresAdmin.drop(schema: schema) }

        /// `arguments` polling hourly: a holder's first visit comes at once, and no other.
        var hourly: [String] { arguments + ["--interval", "3600"] }

        /// A service that takes the lease and has made its first visit.
        func startHolder() throws -> ApnProcess {
            let holder = try ApnProcess(hourly)
            #expect(try jsonObject(try holder.nextLine())["event"] as? String == "visit")
            return holder
        }

        func stopGateway() throws {
            gateway.send(SIGTERM)
            #expect(try gateway.waitForExit().status == 0)
        }
    }

    @Test("a second service waits as a standby, never polling, and takes over when the first is killed")
    func standbyTakesOver() throws {
        let fixture = try Fixture()
        let arguments = fixture.hourly
        let first = try fixture.startHolder()

        let second = try ApnProcess(arguments)
        #expect(second.waitForStandardError { $0.contains("holds the lease on") && $0.contains("waiting as a hot standby") })
        // A standby that is stopped leaves without a visit.
        let stopped = try ApnProcess(arguments + ["--log-batches"])
        #expect(stopped.waitForStandardError { $0.contains("waiting as a hot standby") })
        stopped.send(SIGTERM)
        let (stoppedStatus, stoppedError) = try stopped.waitForExit()
        #expect(stoppedStatus == 0, "\(stoppedError)")
        #expect(try stopped.remainingLines().isEmpty, "a stopped standby never polled")
        #expect(second.linesWaiting == 0, "the standby did not poll while the first lived")

        first.send(SIGKILL)
        _ = try first.waitForExit()
        // Generous: the standby tries every 2 s, on a loaded machine.
        let takeover = try jsonObject(try second.nextLine(timeout: 120))
        #expect(takeover["event"] as? String == "visit", "the standby took over")
        #expect(second.waitForStandardError { $0.contains("took the lease on") })
        second.send(SIGTERM)
        #expect(try second.waitForExit().status == 0)
        try fixture.stopGateway()
    }

    @Test("a holder whose lease session ends stops before its next visit, exit 1")
    func lostLeaseStops() throws {
        let fixture = try Fixture()
        let holder = try ApnProcess(fixture.arguments + ["--interval", "1"])
        #expect(try jsonObject(try holder.nextLine())["event"] as? String == "visit")
        // What a server restart or a broken connection does to the lease.
        try PostgresAdmin(try #require(PostgresAdmin.testURL)).execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'apn-feedback-service-lease'")
        let (status, error) = try holder.waitForExit(timeout: 120)
        #expect(status == 1)
        #expect(error.contains("stopping (another service may poll now)"), "\(error)")
        try fixture.stopGateway()
    }

    @Test("--admin on a hot standby: ready, apn_feedback_lease_held 0 until it takes over, then 1")
    func standbyAdmin() throws {
        let fixture = try Fixture()
        let first = try fixture.startHolder()
        let second = try ApnProcess(fixture.hourly + ["--admin", "127.0.0.1:0"])
        let port = try AdminClient.port(try jsonObject(try second.nextLine())["admin"] as? String)
        #expect(second.waitForStandardError { $0.contains("waiting as a hot standby") })

        #expect(try AdminClient.get(port, path: "/readyz") == (200, "ready\n"), "a standby is doing its job")
        let waiting = try AdminClient.get(port, path: "/metrics").body
        #expect(AdminClient.value(waiting, "apn_feedback_lease_held") == 0, "\(waiting)")
        #expect(AdminClient.value(waiting, "apn_feedback_visits_total") == 0)
        try AdminClient.checkExposition(waiting)

        first.send(SIGTERM)
        #expect(try first.waitForExit().status == 0)
        // Generous: the standby tries every 2 s, on a loaded machine.
        #expect(try jsonObject(try second.nextLine(timeout: 120))["event"] as? String == "visit", "the standby took over")
        let polling = try AdminClient.get(port, path: "/metrics").body
        #expect(AdminClient.value(polling, "apn_feedback_lease_held") == 1, "\(polling)")
        #expect(AdminClient.value(polling, "apn_feedback_visits_total") == 1)
        second.send(SIGTERM)
        _ = try AdminClient.expectStops(second, adminPort: port)
        try fixture.stopGateway()
    }
}
