public import APNWire

/// node-apn 1.x's connection events, with typed payloads. Delivered in order on the
/// connection's callback queue to closures registered with ``Connection/on(_:)`` and to
/// every ``Connection/events`` stream.
public enum ConnectionEvent: Sendable, CustomStringConvertible {
    /// A socket finished its TLS handshake; `openSockets` counts it.
    case connected(openSockets: Int)
    /// A socket closed; `openSockets` no longer counts it.
    case disconnected(openSockets: Int)
    /// A socket was idle for ``Connection/Options/connectionTimeout`` and is being closed.
    case timeout
    /// A notification's bytes were taken by the socket: written, not confirmed (see the
    /// notification's outcome for that). Resends are reported again.
    case transmitted(Notification, Device)
    /// Everything pushed so far has been written, on every socket.
    case completed
    /// A notification was refused: by the gateway (Apple's status, an unknown byte as it
    /// came) or locally (2, 7, 8; 255 for what the format cannot carry; 512–515).
    /// Notification and device are `nil` when the error response named none the
    /// connection still holds (identifier 0, one already settled, one evicted from a
    /// `cacheLength` cache) and for status 10.
    case transmissionError(StatusCode, Notification?, Device?)
    /// An error response named a notification this many places older than the oldest one
    /// still cached; raise ``Connection/Options/cacheLength``, or leave it `nil`.
    case cacheTooSmall(Int)
    /// An error response named a notification already reported accepted by the grace
    /// window: that one and those written after it up to the oldest still open — this many
    /// — were reported accepted, but the gateway rejected or discarded them. The gateway
    /// took longer to answer than ``Connection/Options/shutdownGraceWindow``: raise it.
    case graceWindowTooShort(Int)
    /// A socket's written notifications reached its share of
    /// ``Connection/Options/cacheMemoryLimit`` (`limit` bytes): it writes no more until
    /// outcomes free room (it asks the gateway to confirm). Reported once per connection.
    case cacheFull(limit: Int)
    /// A connection attempt failed or an established socket broke. Sending continues.
    case socketError(APNError)
    /// A failed connection attempt (or a socket closed within
    /// ``Connection/Options/settleWindow``) was counted against
    /// ``Connection/Options/connectionRetryLimit``; follows its ``socketError(_:)``. The
    /// socket tries again after `nextAttemptIn` (the backoff); `nil`: it gives up, and
    /// ``error(_:)`` (514) follows.
    case connectAttemptFailed(APNError, nextAttemptIn: Duration?)
    /// The connection gave up: unusable credentials (513) or the connection retry limit
    /// (514). Later pushes fail with 515.
    case error(APNError)

    /// `transmissionError(8, …)`, `socketError(connectionFailed: …)` …
    public var description: String {
        switch self {
        case .connected(let count): "connected(openSockets: \(count))"
        case .disconnected(let count): "disconnected(openSockets: \(count))"
        case .timeout: "timeout"
        case .transmitted(_, let device): "transmitted(\(device))"
        case .completed: "completed"
        case .transmissionError(let status, _, let device):
            "transmissionError(\(status.rawValue), \(device.map { "\($0)" } ?? "nil"))"
        case .cacheTooSmall(let shortfall): "cacheTooSmall(\(shortfall))"
        case .cacheFull(let limit): "cacheFull(limit: \(limit))"
        case .graceWindowTooShort(let count): "graceWindowTooShort(\(count))"
        case .socketError(let error): "socketError(\(error))"
        case .connectAttemptFailed(let error, let next):
            "connectAttemptFailed(\(error), nextAttemptIn: \(next.map { "\($0)" } ?? "nil"))"
        case .error(let error): "error(\(error))"
        }
    }
}
