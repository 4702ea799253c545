extension TLSConnection {
    /// Runs the handshake to completion, waiting with `poll()`, or throws.
    ///
    /// - Throws: ``TLSError/Kind-swift.struct/verify`` (with the verify result) when the
    ///   peer's certificate is refused, ``TLSError/Kind-swift.struct/timeout`` when
    ///   `deadline` passes, ``TLSError/Kind-swift.struct/handshake`` otherwise.
    public func handshake(deadline: ContinuousClock.Instant) throws(TLSError) {
        while true {
            switch handshake() {
            case .done:
                return
            case .wantRead:
                try wait(.readable, deadline: deadline, "TLS handshake with \(peerDescription)")
            case .wantWrite:
                try wait(.writable, deadline: deadline, "TLS handshake with \(peerDescription)")
            case .closed(let clean):
                throw TLSError(
                    .handshake, "\(peerDescription) closed the connection during the handshake (\(clean ? "close_notify" : "EOF"))")
            case .failed(let error):
                throw error
            }
        }
    }

    private func wait(_ readiness: Readiness, deadline: ContinuousClock.Instant, _ context: String) throws(TLSError) {
        guard try waitUntil(readiness, deadline: deadline) else {
            throw TLSError(.timeout, "\(context): deadline passed")
        }
    }
}
