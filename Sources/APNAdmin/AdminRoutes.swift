import APNSupport

/// The three endpoints every admin listener serves, written once for the three long-running
/// commands so they answer alike: `GET /healthz` 200 while the process serves (the listener
/// answering is the proof), `GET /readyz` 200 when ``notReady`` gives no reason and 503 with
/// `{"reason":"…"}` when it does, `GET /metrics` the Prometheus text format (0.0.4). Each
/// command supplies only its readiness and its metrics.
package struct AdminRoutes: Sendable {
    /// Why the command is not ready now, or nil when it is (read at each request).
    package let notReady: @Sendable () -> String?
    /// The metrics, rendered at each scrape.
    package let metrics: @Sendable () -> String

    /// The routes of a command whose readiness and metrics are these.
    package init(notReady: @escaping @Sendable () -> String?, metrics: @escaping @Sendable () -> String) {
        self.notReady = notReady
        self.metrics = metrics
    }

    /// The answer to `request`.
    package func respond(_ request: AdminRequest) -> AdminResponse {
        switch request.path {
        case "/healthz":
            return .text(200, "ok\n")
        case "/readyz":
            guard let reason = notReady() else { return .text(200, "ready\n") }
            var body = Array(#"{"reason":""#.utf8)
            JSONStringEscaping.appendEscaped(reason, to: &body)
            body += Array("\"}\n".utf8)
            return AdminResponse(status: 503, contentType: "application/json", body: String(decoding: body, as: UTF8.self))
        case "/metrics":
            return AdminResponse(status: 200, contentType: "text/plain; version=0.0.4; charset=utf-8", body: metrics())
        default:
            return .text(404, "not found: /healthz, /readyz, /metrics\n")
        }
    }
}
