import APNTLS

/// The binary gateway's driver.
typealias ConnectionDriver = GatewayDriver<Ledger>

/// Blocking-style I/O over one non-blocking ``TLSConnection``, for the thread that owns it,
/// in either gateway (binary or HTTP/2: `Ledger` is the gateway's ledger).
///
/// Every wait is a `poll()` of the socket and the gateway's ``GatewayState/stopSignal``,
/// so ``MockGateway/stop(timeout:)`` ends it at once, whatever the peer does.
struct GatewayDriver<Ledger: GatewayLedger & ~Copyable> {
    let connection: TLSConnection
    let shared: GatewayState<Ledger>
    /// How long a read without a deadline waits for the client before the gateway gives
    /// up on it (``ConnectionLimits/idleTimeout``); `nil`: until a stop.
    var idleTimeout: Duration? = nil

    /// What one read produced.
    enum ReadResult {
        /// This many bytes were read into the buffer.
        case bytes(Int)
        /// The peer closed or reset, the connection failed, or the gateway is stopping
        /// (tell them apart with ``SharedState/isStopping``).
        case ended
        /// Nothing came before the deadline.
        case timedOut
    }

    /// Runs the TLS handshake; `false` when it failed or did not finish by `deadline` — the
    /// connection is then closed and counted in ``GatewayLedger/handshakeFailureCount``, unless
    /// it was the gateway stopping that cut the wait short. A handshake the client failed
    /// counts even if the stop comes before this thread sees it: a loaded machine must not
    /// make a failure vanish.
    func handshake(deadline: ContinuousClock.Instant) -> Bool {
        while true {
            let readiness: Readiness
            switch connection.handshake() {
            case .done: return true
            case .wantRead: readiness = .readable
            case .wantWrite: readiness = .writable
            case .closed, .failed:
                shared.update { $0.handshakeFailureCount += 1 }
                connection.close()
                return false
            }
            guard wait(readiness, deadline: deadline) else {
                if !shared.isStopping { shared.update { $0.handshakeFailureCount += 1 } }
                connection.close()
                return false
            }
        }
    }

    /// Reads what is available into `buffer`, waiting until `deadline`. Without one it
    /// waits until a stop or, when there is an ``idleTimeout``, until the client has sent
    /// nothing for that long: the connection is then `.ended` as if the client had left,
    /// and counted in ``ConnectionCounters/idleTimeouts``.
    func read(into buffer: UnsafeMutableRawBufferPointer, until deadline: ContinuousClock.Instant? = nil) -> ReadResult {
        let idleDeadline = deadline == nil ? idleTimeout.map { ContinuousClock.now + $0 } : nil
        let limit = deadline ?? idleDeadline
        switch connection.read(into: buffer, waiting: { wait($0, deadline: limit) }) {
        case .bytes(let count): return .bytes(count)
        case .closed, .failed: return .ended
        case .timedOut:
            // `wait` also gives up on a stop or a failed poll: only a passed deadline is a
            // time-out.
            guard let limit, !shared.isStopping, ContinuousClock.now >= limit else { return .ended }
            if deadline != nil { return .timedOut }
            shared.update { $0.connectionCounters.idleTimeouts += 1 }
            return .ended
        }
    }

    /// Writes every byte as TLS records of whatever size OpenSSL chooses (one per call
    /// here, for 6-byte responses and chunks below 16 KiB); `false` on failure or timeout.
    func writeAll(_ bytes: ArraySlice<UInt8>, deadline: ContinuousClock.Instant) -> Bool {
        let written = bytes.withUnsafeBytes { bytes in
            try? connection.write(bytes, waiting: { wait($0, deadline: deadline) })
        }
        return written == bytes.count
    }

    /// Closes the gateway's side — with close_notify first when `closeNotify` — then reads
    /// and discards what the client still sends, until it closes, `linger` passes or the
    /// gateway stops, and only then closes the socket. Closing a socket with unread bytes
    /// makes the kernel answer with a reset, which can destroy what was written before it.
    func finish(closeNotify: Bool, linger: Duration) {
        if closeNotify { _ = connection.shutdown() }
        connection.shutdownWrite()
        let deadline = ContinuousClock.now + linger
        var scratch = [UInt8](repeating: 0, count: 16 * 1024)
        while ContinuousClock.now < deadline && !shared.isStopping,
            case .bytes = scratch.withUnsafeMutableBytes({ buffer in
                connection.read(into: buffer, waiting: { $0 == .readable && wait(.readable, deadline: deadline) })
            })
        {}
        connection.close()
    }

    /// Closes with a TCP reset.
    func reset() {
        connection.reset()
    }

    /// Waits for `readiness` until `deadline` (`nil`: none) or the stop; `false` when the
    /// deadline passed, the wait failed or the gateway is stopping.
    private func wait(_ readiness: Readiness, deadline: ContinuousClock.Instant?) -> Bool {
        guard !shared.isStopping else { return false }
        do {
            return try connection.waitUntil(readiness, deadline: deadline, orSignal: shared.stopSignal) == .ready
        } catch {
            return false
        }
    }
}
