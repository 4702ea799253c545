/// The result of one non-blocking step of a ``TLSConnection`` (handshake, read, write,
/// shutdown). Nothing is hidden in integers or `errno`: every outcome is a case.
package enum TLSStep: Sendable {
    /// The step finished: for reads and writes, the number of bytes transferred (> 0);
    /// 0 for a finished handshake or a sent close_notify.
    case done(Int)
    /// Call again when the socket is readable.
    case wantRead
    /// Call again when the socket is writable.
    case wantWrite
    /// The peer closed: `clean` when it sent close_notify first, `false` for a TCP EOF
    /// without close_notify (a truncation attack or a crashed peer).
    case closed(clean: Bool)
    /// The connection failed; it cannot be used any more.
    case failed(TLSError)
}

extension TLSStep {
    /// Whether the step stopped for bytes only the socket can bring (``wantRead``).
    var asksForSocketInput: Bool {
        if case .wantRead = self { return true }
        return false
    }
}
