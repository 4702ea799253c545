import APNTLS
import APNGatewayServer

/// A mock gateway's run, the same for the binary and the HTTP/2 gateway: where it is in its
/// life and the ports it bound (`GatewayLifecycle`), the start of its accept threads once its
/// listeners are bound, and the stop that ends every thread of its ``GatewayState``.
final class GatewayRun<Ports: Sendable>: Sendable {
    /// The gateway's type name, for the start's precondition and error.
    private let name: String
    /// What the gateway's accept threads are called in the error when they cannot start.
    private let acceptThreads: String
    private let lifecycle = GatewayLifecycle<Ports>()

    /// An idle run of the gateway called `name` (its type's name), whose accept threads are
    /// called `acceptThreads` ("accept threads", "accept thread") in a start's error.
    init(name: String, acceptThreads: String) {
        self.name = name
        self.acceptThreads = acceptThreads
    }

    /// The ports bound; `nil` before ``start(_:state:_:)``.
    var ports: Ports? {
        lifecycle.ports
    }

    /// Starts the run once the listeners are bound at `ports`: records them, then starts the
    /// accept threads with `startAcceptThreads` (`true` when every one started). When the
    /// system refuses a thread, stops (``stop(_:timeout:)``, waiting up to 5 seconds, the
    /// gateways' default) and throws.
    ///
    /// - Precondition: called once, before ``stop(_:timeout:)``.
    /// - Throws: `TLSError` (``TLSError/Kind-swift.struct/listen``) when an accept thread cannot
    ///   be started.
    func start<Ledger: GatewayLedger & ~Copyable>(
        _ ports: Ports, state: GatewayState<Ledger>, _ startAcceptThreads: () -> Bool
    ) throws(TLSError) {
        lifecycle.started(ports, name: name)
        guard startAcceptThreads() else {
            stop(state, timeout: .seconds(5))
            throw TLSError(.listen, "starting \(name)'s \(acceptThreads): the system refused a thread")
        }
    }

    /// Ends the run: marks it stopped (keeping its ports), asks every thread of `state` to
    /// finish and waits up to `timeout` for them. Safe more than once and before the start.
    ///
    /// - Returns: `true` when every thread finished in time.
    @discardableResult
    func stop<Ledger: GatewayLedger & ~Copyable>(_ state: GatewayState<Ledger>, timeout: Duration) -> Bool {
        lifecycle.stopped()
        state.requestStop()
        return state.waitForThreads(until: .now + timeout)
    }
}
