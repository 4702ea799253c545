import APNGatewayServer

/// A kind of connection a mock gateway refused or dropped on its own (rather than as a
/// fault asked), as `apn mock-gateway` logs and sums them. Each kind is counted on its own:
/// an attack that fills the connection cap is not a failing handshake, nor an idle client.
package enum ConnectionRefusal: String, CaseIterable, Sendable {
    /// Accepted while ``MockGateway/Configuration/maxConnections`` were open: closed at once.
    case overCap = "over_cap"
    /// Closed after the idle timeout without a byte from the client.
    case idleTimeout = "idle_timeout"
    /// The TLS handshake failed or timed out.
    case handshakeFailure = "handshake_failure"
    /// No thread could be started for it.
    case threadStartFailure = "thread_start_failure"
    /// The handshake done, the client offered no ALPN, so not `h2` (HTTP/2 gateway only).
    case alpnRefused = "alpn_refused"
}

extension MockGateway {
    /// How many connections were refused or dropped so far, by kind (a snapshot; the
    /// feedback listener's included, as in the counts it sums).
    package var refusals: [ConnectionRefusal: Int] {
        let counters = shared.server.counters
        return [
            .overCap: counters.overLimit, .idleTimeout: counters.idleTimeouts,
            .handshakeFailure: counters.handshakeFailures, .threadStartFailure: counters.threadStartFailures,
        ]
    }
}

extension HTTP2MockGateway.Summary {
    /// The summary's refused and dropped connections, by kind.
    package var refusals: [ConnectionRefusal: Int] {
        [
            .overCap: connectionsOverLimit, .idleTimeout: idleTimeouts, .handshakeFailure: handshakeFailures,
            .threadStartFailure: threadStartFailures, .alpnRefused: alpnRefusals,
        ]
    }
}
