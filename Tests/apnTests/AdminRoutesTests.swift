@testable import apn
import APN
import APNAdmin
import APNFeedbackService
import APNFeedbackStore
import Testing

/// #42, the parts the three admin listeners share, without a process: `--admin`'s address,
/// the answers of ``AdminRoutes`` (a 503 is seen here for certain: against a process the
/// stop may beat the request), the feedback service's readiness from its stop request, and
/// its counters as exposition text.
@Suite struct AdminRoutesTests {
    static func request(_ path: String) -> AdminRequest { AdminRequest(method: "GET", path: path) }

    @Test("--admin HOST:PORT: the port after the last colon; the rest is a usage error", arguments: [
        ("127.0.0.1:0", "127.0.0.1", 0), ("localhost:9100", "localhost", 9100), ("nowhere", nil, nil), (":80", nil, nil),
        ("127.0.0.1:65536", nil, nil), ("127.0.0.1:", nil, nil),
    ] as [(String, String?, UInt16?)])
    func adminFlag(text: String, host: String?, port: UInt16?) throws {
        let flags = try Flags(["--admin", text], groups: [AdminFlag.group])
        if let host, let port {
            let parsed = try #require(try AdminFlag.parse(flags))
            #expect(parsed.host == host && parsed.port == port)
        } else {
            #expect(throws: UsageError.self) { try AdminFlag.parse(flags) }
        }
        #expect(try AdminFlag.parse(Flags([], groups: [AdminFlag.group])) == nil, "not given: no listener")
    }

    @Test func routesAnswerHealthReadinessMetricsAndNothingElse() {
        let ready = AdminRoutes(notReady: { nil }, metrics: { "m 1\n" })
        #expect(ready.respond(Self.request("/healthz")).status == 200)
        #expect(ready.respond(Self.request("/readyz")).body == "ready\n")
        let metrics = ready.respond(Self.request("/metrics"))
        #expect(metrics.status == 200 && metrics.body == "m 1\n")
        #expect(metrics.contentType == "text/plain; version=0.0.4; charset=utf-8")
        #expect(ready.respond(Self.request("/")).status == 404)

        let stopping = AdminRoutes(notReady: { #"said "no""# }, metrics: { "" })
        let answer = stopping.respond(Self.request("/readyz"))
        #expect(answer.status == 503 && answer.contentType == "application/json")
        #expect(answer.body == #"{"reason":"said \"no\""}"# + "\n", "the reason is a JSON string")
        #expect(stopping.respond(Self.request("/healthz")).status == 200, "alive while not ready")
    }

    @Test func theFeedbackServiceIsReadyUntilAStopIsAskedForOrItReturns() throws {
        let metrics = FeedbackServiceMetrics(leaseHeld: false)
        for finish in [{ (service: FeedbackService, admin: FeedbackServiceAdmin) in service.stop() }, { $1.markStopping() }] {
            let service = try FeedbackService(
                configuration: FeedbackService.Configuration(store: "unused.sqlite", feedback: Feedback.Options()))
            let admin = FeedbackServiceAdmin(metrics: metrics, service: service, certificates: { [] })
            #expect(admin.routes.respond(Self.request("/readyz")).status == 200, "a standby (no lease) is ready")
            finish(service, admin)
            #expect(admin.routes.respond(Self.request("/readyz")).body == #"{"reason":"stopping"}"# + "\n")
        }
    }

    @Test func feedbackServiceCounters() {
        let metrics = FeedbackServiceMetrics(leaseHeld: false)
        #expect(metrics.render(process: ProcessMetrics(), certificates: []).contains("\napn_feedback_last_success_timestamp_seconds 0\n"))
        metrics.read(4)
        var applied = FeedbackApplication()
        applied.read = 3
        applied.deactivated = 2
        metrics.committed(applied)
        metrics.visited(failed: true)
        metrics.skipped()
        metrics.setLeaseHeld(true)
        let text = metrics.render(process: ProcessMetrics(), certificates: [CertificateExpiry(name: "client", notAfter: 1_800_000_000)])
        for line in [
            "apn_feedback_visits_total 1", "apn_feedback_failures_total 1", "apn_feedback_skipped_visits_total 1",
            "apn_feedback_tuples_read_total 4", "apn_feedback_tuples_applied_total 3", "apn_feedback_tokens_deactivated_total 2",
            "apn_feedback_lease_held 1", "apn_feedback_last_success_timestamp_seconds 0",
            #"apn_certificate_expiry_timestamp_seconds{certificate="client"} 1800000000"#, "process_threads 0",
        ] {
            #expect(text.contains("\n\(line)\n"), "\(line) in:\n\(text)")
        }
        metrics.visited(failed: false)
        let after = metrics.render(process: ProcessMetrics(), certificates: [])
        #expect(!after.contains("\napn_feedback_last_success_timestamp_seconds 0\n"), "set by a successful visit")
        #expect(after.contains("\napn_feedback_failures_total 1\n") && after.contains("\napn_feedback_visits_total 2\n"))
    }
}
