import APNAdmin
import APNSupport
import APNBridge
import APNTLS
import APNWire
import Foundation
import Synchronization

/// The endpoints of `apn bridge --admin` (#42): `GET /healthz` (200 while the process
/// serves), `GET /readyz` (200 while the bridge takes clients; 503 with a JSON reason once
/// it stops, or while a tenant's upstream or the store fails: ``Bridge/notReadyReasons()``) and `GET /metrics` (the Prometheus text format, 0.0.4: ``BridgeMetrics``).
final class BridgeAdmin: Sendable {
    private let bridge: Bridge
    private let stopping = Atomic<Bool>(false)
    private let listed: Lock<[(name: String, notAfter: Double)]>

    /// Each certificate the bridge uses and when it expires, UNIX seconds.
    var certificates: [(name: String, notAfter: Double)] { listed.withLock { $0 } }

    init(bridge: Bridge, certificates: [(name: String, notAfter: Double)] = []) {
        self.bridge = bridge
        self.listed = Lock(certificates)
    }

    /// The certificates after a reload.
    func replaceCertificates(_ certificates: [(name: String, notAfter: Double)]) {
        listed.withLock { $0 = certificates }
    }

    /// The certificates of `configuration`: the server's, each client CA, and each tenant's
    /// upstream push certificate (a file that cannot be read is left out: the bridge would
    /// not have started).
    static func certificates(of configuration: Bridge.Configuration) -> [(name: String, notAfter: Double)] {
        var list: [(String, Double)] = [("server", configuration.serverCredentials.certificate.notAfter.timeIntervalSince1970)]
        for (index, authority) in configuration.clientCertificateAuthorities.enumerated() {
            list.append(("client_ca_\(index)", authority.notAfter.timeIntervalSince1970))
        }
        for tenant in configuration.tenants.all {
            guard case .certificate(let path, _) = tenant.upstream,
                let pem = FileManager.default.contents(atPath: path),
                let certificate = try? TLSCertificate.certificates(fromPEM: Array(pem)).first
            else { continue }
            list.append(("tenant:\(tenant.name)", certificate.notAfter.timeIntervalSince1970))
        }
        return list
    }

    /// From now on `/readyz` answers 503.
    func markStopping() {
        stopping.store(true, ordering: .sequentiallyConsistent)
    }

    /// The answer to `request`: ``AdminRoutes``, ready until the bridge stops.
    func respond(_ request: AdminRequest) -> AdminResponse {
        AdminRoutes(
            notReady: { [self] in
                if stopping.load(ordering: .sequentiallyConsistent) { return "stopping" }
                let reasons = bridge.notReadyReasons()
                return reasons.isEmpty ? nil : reasons.joined(separator: "; ")
            },
            metrics: { [self] in
                BridgeMetrics.render(
                    bridge.summary, feedbackPending: bridge.feedbackPending(), process: ProcessMetrics.current(),
                    certificates: certificates.map { CertificateExpiry(name: $0.name, notAfter: $0.notAfter) })
            }
        ).respond(request)
    }
}

/// The bridge's counters as Prometheus metrics, a `tenant` label on each bridge family.
enum BridgeMetrics {
    static func render(
        _ summary: Bridge.Summary, feedbackPending: [String: Int] = [:], process: ProcessMetrics,
        certificates: [CertificateExpiry] = []
    ) -> String {
        var text = PrometheusText()
        let tenants = summary.byTenant.keys.sorted()
        func perTenant(_ name: String, _ help: String, _ value: (BridgeCounts) -> Int) {
            text.family(name, .counter, help: help, tenants.map { ([("tenant", $0)], Double(value(summary.byTenant[$0]!))) })
        }
        perTenant("apn_bridge_notifications_received_total", "Notifications read from binary clients.") { $0.received }
        perTenant("apn_bridge_notifications_forwarded_total", "Notifications sent upstream.") { $0.forwarded }
        perTenant("apn_bridge_notifications_delivered_total", "Notifications the upstream accepted (200, or 410 with feedback).") {
            $0.delivered
        }
        text.family(
            "apn_bridge_notifications_refused_total", .counter, help: "Notifications refused, by the binary status told.",
            tenants.flatMap { tenant in
                summary.byTenant[tenant]!.refused.sorted { $0.key.rawValue < $1.key.rawValue }.map {
                    ([("tenant", tenant), ("status", String($0.key.rawValue))], Double($0.value))
                }
            })
        text.family(
            "apn_bridge_upstream_refusals_total", .counter, help: "Upstream refusals, by Apple's reason.",
            tenants.flatMap { tenant in
                summary.byTenant[tenant]!.refusedByReason.sorted { $0.key < $1.key }.map {
                    ([("tenant", tenant), ("reason", $0.key)], Double($0.value))
                }
            })
        perTenant("apn_bridge_notifications_maybe_delivered_total", "Notifications whose fate upstream is unknown.") {
            $0.maybeDelivered
        }
        perTenant("apn_bridge_bridge_failures_total", "Notifications not delivered for the bridge's own failure (status 10).") {
            $0.bridgeFailures
        }
        perTenant("apn_bridge_resends_answered_total", "Resends answered from the resend record, not forwarded.") {
            $0.resendsAnswered
        }
        perTenant("apn_bridge_recovered_total", "Notifications an earlier bridge read and never wrote, forwarded here.") {
            $0.recovered
        }
        perTenant("apn_bridge_connections_opened_total", "Client connections opened.") { $0.connections }
        text.single(
            "apn_bridge_refused_connections_total", .counter, help: "Gateway connections closed at once.",
            Double(summary.refusedConnections))
        text.family(
            "apn_bridge_in_flight", .gauge, help: "Notifications forwarded (or held in the journal) and not answered yet.",
            tenants.map { ([("tenant", $0)], Double(summary.byTenant[$0]!.inFlight)) })
        text.family(
            "apn_bridge_connections", .gauge, help: "Client connections open now.",
            tenants.map { ([("tenant", $0)], Double(summary.liveConnections[$0] ?? 0)) })
        text.family(
            "apn_bridge_unjournaled_notifications", .gauge,
            help: "With --store, notifications read and not yet in the store's journal: what a crash would lose.",
            tenants.map { ([("tenant", $0)], Double(summary.unjournaled[$0] ?? 0)) })
        text.single(
            "apn_bridge_connections_waiting_for_store", .gauge,
            help: "Connections paused until the store's next commit (--max-unjournaled reached).",
            Double(summary.waitingForStore))
        text.single(
            "apn_bridge_held_notifications", .gauge,
            help: "Notifications every session holds unsettled: what --max-in-flight bounds.", Double(summary.held))
        if let limit = summary.maxInFlight {
            text.single("apn_bridge_max_in_flight", .gauge, help: "The --max-in-flight in effect.", Double(limit))
        }
        text.single(
            "apn_bridge_connections_waiting_for_room", .gauge,
            help: "Connections paused at --max-in-flight, waiting for their turn.", Double(summary.waitingForRoom))
        text.single(
            "apn_bridge_room_waits_total", .counter, help: "Times a connection found --max-in-flight reached and paused.",
            Double(summary.roomWaits))
        text.single(
            "apn_bridge_sessions", .gauge, help: "Client sessions kept: open connections and closed ones awaiting answers.",
            Double(summary.unfinishedSessions))
        func perTenant(_ name: String, _ help: String, histogram: (BridgeCounts) -> BridgeHistogram) {
            text.histogram(
                name, help: help,
                tenants.map {
                    let histogram = histogram(summary.byTenant[$0]!)
                    return ([("tenant", $0)], histogram.cumulative, histogram.sum)
                })
        }
        perTenant(
            "apn_bridge_upstream_request_duration_seconds",
            "From the hand-off to the tenant's provider to the upstream's answer, in seconds."
        ) { $0.upstreamRequestDuration }
        perTenant(
            "apn_bridge_refusal_distance_notifications",
            "How many notifications a client had written past a refused one when it read the error response."
        ) { $0.refusalDistance }
        text.single("apn_feedback_tuples_stored_total", .counter, help: "Feedback tuples stored.", Double(summary.feedbackStored))
        text.family(
            "apn_feedback_outbox_pending", .gauge, help: "Feedback tuples waiting to be served, by tenant.",
            feedbackPending.keys.sorted().map { ([("tenant", $0)], Double(feedbackPending[$0]!)) })
        text.single("apn_feedback_tuples_served_total", .counter, help: "Feedback tuples served.", Double(summary.feedbackServed))
        text.certificateExpiry(certificates)
        text.process(process)
        return text.text
    }
}
