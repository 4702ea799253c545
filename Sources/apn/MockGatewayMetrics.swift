import APNAdmin
import APNMockGateway
import APNWire

/// `apn mock-gateway`'s counts as Prometheus metrics (`apn_mock_…`), the same the summary
/// line gives at the end but while it runs, so a load or soak run can be watched. A
/// `gateway` label tells the binary gateway (`binary`, its feedback listener included where
/// said) from the HTTP/2 one (`http2`, only with `--http2`); the `apn_mock_http2_…`
/// families are there only with `--http2`.
enum MockGatewayMetrics {
    /// The metrics of `gateways` now, and the process' own.
    static func render(_ gateways: MockGatewayCommand.Gateways, process: ProcessMetrics) -> String {
        let binary = gateways.binary
        let http2 = gateways.http2?.summary
        var text = PrometheusText()
        func perGateway(_ name: String, _ kind: PrometheusText.Kind, _ help: String, _ values: (Double, Double?)) {
            var samples = [([("gateway", "binary")], values.0)]
            if let second = values.1 { samples.append(([("gateway", "http2")], second)) }
            text.family(name, kind, help: help, samples)
        }
        perGateway(
            "apn_mock_notifications_accepted_total", .counter, "Notifications accepted (recorded).",
            (Double(binary.recordCount), http2.map { Double($0.accepted) }))
        var byStatus: [UInt16: Int] = [:]
        for rejection in binary.rejections { byStatus[rejection.status.rawValue, default: 0] += 1 }
        text.family(
            "apn_mock_notifications_refused_total", .counter,
            help: "Notifications the binary gateway refused, by the status of its error response.",
            byStatus.keys.sorted().map { ([("gateway", "binary"), ("status", String($0))], Double(byStatus[$0]!)) })
        text.single(
            "apn_mock_confirmation_markers_total", .counter,
            help: "Confirmation markers the binary gateway answered (not refusals).", Double(binary.markerCount))
        perGateway(
            "apn_mock_connections_total", .counter, "Connections served (TLS handshake done; binary: gateway port only).",
            (Double(binary.connectionCount), http2.map { Double($0.connections) }))
        perGateway(
            "apn_mock_connections_open", .gauge, "Connections open now (binary: gateway port only).",
            (Double(binary.openConnectionCount), gateways.http2.map { Double($0.openConnectionCount) }))
        var refused = binary.refusals.map { ("binary", $0.key.rawValue, $0.value) }
        refused += (http2?.refusals ?? [:]).map { ("http2", $0.key.rawValue, $0.value) }
        text.family(
            "apn_mock_connections_refused_total", .counter,
            help: "Connections refused or dropped by the gateway itself, by kind (binary: both ports).",
            refused.sorted { ($0.0, $0.1) < ($1.0, $1.1) }.map { ([("gateway", $0.0), ("kind", $0.1)], Double($0.2)) })
        if let http2 {
            text.family(
                "apn_mock_http2_responses_total", .counter, help: "Answers the HTTP/2 gateway decided, by HTTP status.",
                http2.statuses.sorted { $0.key < $1.key }.map { ([("status", String($0.key))], Double($0.value)) })
            text.family(
                "apn_mock_http2_refusals_total", .counter, help: "The HTTP/2 gateway's refusals, by Apple's reason.",
                http2.reasons.map { ($0.key.rawValue, $0.value) }.sorted { $0.0 < $1.0 }.map { ([("reason", $0.0)], Double($0.1)) })
            text.family(
                "apn_mock_http2_connection_faults_total", .counter,
                help: "HTTP/2 connections ended or stalled, by cause: the client's protocol error, or a fault asked for.",
                [("protocol_error", http2.protocolErrors), ("goaway", http2.goaways), ("reset", http2.resets), ("stall", http2.stalls)]
                    .map { ([("cause", $0.0)], Double($0.1)) })
            text.single(
                "apn_mock_http2_rejected_streams_total", .counter, help: "HTTP/2 streams reset for passing a request limit.",
                Double(http2.rejectedStreams))
        }
        text.single(
            "apn_mock_feedback_connections_total", .counter, help: "Feedback connections served.",
            Double(binary.feedbackConnectionCount))
        text.single(
            "apn_mock_feedback_tuples_served_total", .counter, help: "Feedback tuples handed to feedback connections.",
            Double(binary.servedFeedbackCount))
        text.process(process)
        return text.text
    }
}
