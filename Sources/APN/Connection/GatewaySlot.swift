import APNTLS

/// One socket of a connection's pool: its gateway session (identifiers, resend cache) and,
/// while connected, its TLS connection. Touched only by the connection's I/O thread.
final class GatewaySlot {
    let index: Int
    var session: GatewaySession
    var tls: TLSConnection?
    /// The number of the current connection attempt; results of earlier ones are stale.
    var attempt = 0
    var connecting = false
    /// The last write could not finish: wait for the socket to become writable.
    var writeBlocked = false
    /// The socket may hold bytes to read (poll said so, or it was just connected).
    var readReady = false
    /// When the session wants `tick`.
    var timer: Timestamp?
    /// Confirmed flushes waiting on this slot's `flushed` event, oldest first.
    var flushes: [Int] = []
    /// The session reported `shutdownComplete` since shutdown was last asked.
    var shutDown = false

    init(index: Int, configuration: SessionConfiguration) {
        self.index = index
        self.session = GatewaySession(configuration: configuration)
    }
}
