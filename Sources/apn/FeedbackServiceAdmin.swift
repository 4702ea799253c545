import APNAdmin
import APN
import APNFeedbackService
import Synchronization

/// The endpoints of `apn feedback-service --admin` (#42), through ``AdminRoutes``: ready
/// while the service runs and no stop was asked for — a hot standby waiting for the
/// PostgreSQL lease included, as it is doing its job (`apn_feedback_lease_held` 0
/// tells it apart) — and 503 `{"reason":"stopping"}` from the stop signal on.
final class FeedbackServiceAdmin: Sendable {
    let metrics: FeedbackServiceMetrics
    private let service: FeedbackService
    /// The push certificate's expiry, when the service uses one that can be read (read
    /// at each scrape: a reload may have changed it).
    private let certificates: @Sendable () -> [CertificateExpiry]
    /// Set when the service returns, for a stop that no signal asked for (`--once`, exit 1).
    private let finished = Atomic<Bool>(false)

    init(metrics: FeedbackServiceMetrics, service: FeedbackService, certificates: @escaping @Sendable () -> [CertificateExpiry]) {
        self.metrics = metrics
        self.service = service
        self.certificates = certificates
    }

    /// From now on `/readyz` answers 503.
    func markStopping() {
        finished.store(true, ordering: .sequentiallyConsistent)
    }

    /// What the listener answers.
    var routes: AdminRoutes {
        AdminRoutes(
            notReady: { [self] in
                service.isStopping || finished.load(ordering: .sequentiallyConsistent) ? "stopping" : nil
            },
            metrics: { [self] in metrics.render(process: ProcessMetrics.current(), certificates: certificates()) })
    }
}

extension FeedbackServiceAdmin {
    /// The admin listener while the service runs.
    struct Listener {
        let endpoints: FeedbackServiceAdmin
        let server: AdminServer

        /// Answers 503 from now on, then closes the listener (the service is returning).
        func stop() {
            endpoints.markStopping()
            server.stop()
        }
    }

    /// Starts `--admin`'s listener and prints the start line, `{"event":"started","admin":…}`
    /// (an event like the service's other lines); nil without the flag.
    static func start(
        _ settings: FeedbackServiceCommand.Settings, metrics: FeedbackServiceMetrics, service: FeedbackService,
        certificates: @escaping @Sendable () -> [CertificateExpiry]
    ) throws -> Listener? {
        guard settings.admin != nil else { return nil }
        let endpoints = FeedbackServiceAdmin(metrics: metrics, service: service, certificates: certificates)
        guard let server = try AdminServer.start(at: settings.admin, routes: endpoints.routes) else { return nil }
        LineWriter.stdout(.object([("event", .string("started")), ("admin", .string(server.address))]))
        return Listener(endpoints: endpoints, server: server)
    }
}
