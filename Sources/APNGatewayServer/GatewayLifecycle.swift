import APNSupport
import Synchronization

/// Where a gateway is in its life — idle, running, stopped — and the ports its listeners
/// bound, for the binary gateway (two ports) and the HTTP/2 one (one).
package final class GatewayLifecycle<Ports: Sendable>: Sendable {
    private enum State {
        case idle
        case running(Ports)
        case stopped(Ports?)
    }

    private let state = Lock(State.idle)

    /// An idle gateway.
    package init() {}

    /// Records the ports bound by `start()`.
    /// - Precondition: the gateway is idle (`name` says which, in the failure message).
    package func started(_ ports: Ports, name: String) {
        state.withLock { state in
            guard case .idle = state else { preconditionFailure("\(name).start() called twice or after stop()") }
            state = .running(ports)
        }
    }

    /// Marks the gateway stopped, keeping the ports it had; again and before start, too.
    package func stopped() {
        state.withLock { state in
            switch state {
            case .idle: state = .stopped(nil)
            case .running(let ports): state = .stopped(ports)
            case .stopped: break
            }
        }
    }

    /// The ports bound; `nil` before start.
    package var ports: Ports? {
        state.withLock { state in
            switch state {
            case .idle: nil
            case .running(let ports): ports
            case .stopped(let ports): ports
            }
        }
    }
}
