import Foundation

/// Starts the gateway's threads, counting each in ``SharedState`` so that
/// ``MockGateway/stop(timeout:)`` (or ``HTTP2MockGateway/stop(timeout:)``) can wait for all
/// of them to finish.
enum ThreadLauncher {
    static func start<Ledger: GatewayLedger & ~Copyable>(_ name: String, shared: GatewayState<Ledger>, _ body: @escaping @Sendable () -> Void) {
        shared.threadStarting()
        let thread = Thread {
            body()
            shared.threadFinished()
        }
        thread.name = name
        thread.start()
    }
}
