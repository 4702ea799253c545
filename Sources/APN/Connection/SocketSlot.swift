import APNTLS

/// The driver's side of one slot of the pool: its socket while connected, and what the
/// I/O thread tracks of it. The slot's session lives in the ``ConnectionPool``; the two
/// share the slot's index. Touched only by the connection's I/O thread.
///
/// A noncopyable struct kept in a ``SlotTable`` inside the loop's own state, rather than a
/// class: changing a class's stored property costs a dynamic exclusivity check per
/// access, while an access through the loop's `inout self` is checked at compile time.
struct SocketSlot: ~Copyable {
    var tls: TLSConnection?
    /// What the peer acknowledged of what this socket wrote.
    var acknowledgements = AcknowledgementMap()
    /// The last write could not finish: wait for the socket to become writable.
    var writeBlocked = false
    /// The socket may hold bytes to read (poll said so, or it was just connected).
    var readReady = false
    /// Writes since the socket was last read; see `ConnectionLoop.service`.
    var writesSinceRead = 0
    /// When the pool wants `tick` for this slot.
    var timer: Timestamp?
    /// The session's outbound buffer holds bytes: set by the pool's `write`, cleared when
    /// a write takes everything offered or the socket closes.
    var hasOutbound = false
    /// Acknowledgements are reported every few milliseconds (`watchAcknowledgements`).
    var watched = false

    /// Forgets the socket (closed, or replaced by a new connection).
    mutating func detach() {
        tls = nil
        writeBlocked = false
        readReady = false
        hasOutbound = false
        writesSinceRead = 0
    }
}
