import APNAdmin
import Synchronization

/// The endpoints of `apn mock-gateway --admin` (#42), through ``AdminRoutes``: the listener
/// starts once the gateways listen, so it is ready from its first answer until the stop
/// signal, then 503 `{"reason":"stopping"}` while the record is written and the summary
/// printed. Its metrics are ``MockGatewayMetrics``, read from the gateways at each scrape.
final class MockGatewayAdmin: Sendable {
    private let gateways: MockGatewayCommand.Gateways
    private let stopping = Atomic<Bool>(false)

    init(gateways: MockGatewayCommand.Gateways) {
        self.gateways = gateways
    }

    /// From now on `/readyz` answers 503.
    func markStopping() {
        stopping.store(true, ordering: .sequentiallyConsistent)
    }

    /// What the listener answers.
    var routes: AdminRoutes {
        AdminRoutes(
            notReady: { [self] in stopping.load(ordering: .sequentiallyConsistent) ? "stopping" : nil },
            metrics: { [self] in MockGatewayMetrics.render(gateways, process: ProcessMetrics.current()) })
    }
}
