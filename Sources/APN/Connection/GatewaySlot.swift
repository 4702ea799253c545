import APNTLS

/// One socket of a connection's pool: its gateway session (identifiers, resend cache) and,
/// while connected, its TLS connection. Touched only by the connection's I/O thread.
///
/// A noncopyable struct kept in a ``SlotTable`` inside the loop's own state, rather than a
/// class: changing a class's stored property (`slot.session.push(…)`) costs a dynamic
/// exclusivity check per access, while an access through the loop's `inout self` is
/// checked at compile time.
struct GatewaySlot: ~Copyable {
    var session: GatewaySession
    var tls: TLSConnection?
    /// What the peer acknowledged of what this socket wrote.
    var acknowledgements = AcknowledgementMap()
    /// The number of the current connection attempt; results of earlier ones are stale.
    var attempt = 0
    var connecting = false
    /// The last write could not finish: wait for the socket to become writable.
    var writeBlocked = false
    /// The socket may hold bytes to read (poll said so, or it was just connected).
    var readReady = false
    /// Writes since the socket was last read; see `ConnectionLoop.service`.
    var writesSinceRead = 0
    /// When the session wants `tick`.
    var timer: Timestamp?
    /// Confirmed flushes waiting on this slot's `flushed` event, oldest first.
    var flushes: [Int] = []
    /// The session reported `shutdownComplete` since shutdown was last asked.
    var shutDown = false

    init(configuration: SessionConfiguration) {
        self.session = GatewaySession(configuration: configuration)
    }
}
