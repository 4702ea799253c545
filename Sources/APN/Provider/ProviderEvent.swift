/// What a ``Provider`` reports to its listeners (``Provider/on(_:)-(_)``), in order, on the
/// callback queue. Per-notification events are made only while someone listens.
public enum ProviderEvent: Sendable, CustomStringConvertible {
    /// A connection is open and speaks HTTP/2 (the peer, e.g. `api.push.apple.com:443`).
    case connected(String)
    /// A connection ended; the error says why when it was not a clean close.
    case disconnected(String, ProviderError?)
    /// A connection could not be made.
    case connectionFailed(ProviderError)
    /// Follows ``connectionFailed(_:)``: the next attempt is made after `nextAttemptIn` (the
    /// backoff) while notifications wait; `nil`: this was the last of
    /// ``Provider/Options/connectionRetryLimit`` attempts (or the credentials are
    /// unusable), so the notifications waiting failed — a later send tries again.
    case connectAttemptFailed(ProviderError, nextAttemptIn: Duration?)
    /// The server sent GOAWAY: no new streams on that connection; the ones it did not
    /// process are sent again on another.
    case goaway(String, errorCode: UInt32, debugData: String)
    /// A keepalive PING was answered: the connection is alive (sent after
    /// ``Provider/Options/pingInterval`` without a byte from the server).
    case pingAnswered(String)
    /// A new provider token was signed (its `iat`, seconds since 1970).
    case tokenRenewed(issuedAt: Int64)
    /// A notification was not delivered: Apple refused it (``ProviderResponse/reason``), or
    /// it failed (``ProviderResponse/error``).
    case failed(ProviderResponse)

    /// One line for logs.
    public var description: String {
        switch self {
        case .connected(let peer): "connected to \(peer)"
        case .disconnected(let peer, let error): "disconnected from \(peer)" + (error.map { ": \($0)" } ?? "")
        case .connectionFailed(let error): "connection failed: \(error)"
        case .connectAttemptFailed(let error, let next):
            "connection attempt failed: \(error); " + (next.map { "next attempt in \($0)" } ?? "no more attempts")
        case .goaway(let peer, let code, let debug): "GOAWAY from \(peer) (error code \(code))" + (debug.isEmpty ? "" : ": \(debug)")
        case .pingAnswered(let peer): "PING answered by \(peer)"
        case .tokenRenewed(let issuedAt): "provider token renewed (iat \(issuedAt))"
        case .failed(let response): "failed: \(response)"
        }
    }
}
