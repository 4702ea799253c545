package import APNSupport
extension TLSConnection {
    /// Runs the handshake to completion, waiting with `poll()`, or throws.
    ///
    /// - Throws: ``TLSError/Kind-swift.struct/verify`` (with the verify result) when the
    ///   peer's certificate is refused, ``TLSError/Kind-swift.struct/timeout`` when
    ///   `deadline` passes, ``TLSError/Kind-swift.struct/handshake`` otherwise.
    package func handshake(deadline: ContinuousClock.Instant) throws(TLSError) {
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

    /// Runs the handshake to completion, waiting with `poll()` on the socket and `signal`
    /// for as long as `plan` says, asked before each wait and after each wake-up: a thread
    /// another thread can stop, or whose deadline lives on another clock. `plan` resets the
    /// signal if it wants to.
    ///
    /// - Throws: as ``handshake(deadline:)``; ``TLSError/Kind-swift.struct/timeout`` when
    ///   `plan` gives up.
    package func handshake(orSignal signal: WakeSignal, plan: () -> WaitPlan) throws(TLSError) {
        while true {
            let readiness: Readiness
            switch handshake() {
            case .done: return
            case .wantRead: readiness = .readable
            case .wantWrite: readiness = .writable
            case .closed(let clean):
                throw TLSError(
                    .handshake, "\(peerDescription) closed the connection during the handshake (\(clean ? "close_notify" : "EOF"))")
            case .failed(let error):
                throw error
            }
            guard try Poller.wait(socket.descriptor, events: readiness.pollEvents, orSignal: signal, plan: plan) else {
                throw TLSError(.timeout, "TLS handshake with \(peerDescription): gave up waiting")
            }
        }
    }

    private func wait(_ readiness: Readiness, deadline: ContinuousClock.Instant, _ context: String) throws(TLSError) {
        guard try waitUntil(readiness, deadline: deadline) else {
            throw TLSError(.timeout, "\(context): deadline passed")
        }
    }
}
