package import APNSupport
package import APNTLS

/// Blocking-style I/O over one non-blocking ``TLSConnection``, for the thread that owns it,
/// in any server (binary, feedback or the mock's HTTP/2).
///
/// Every wait is a `poll()` of the socket and the server's ``ServerState/stopSignal`` (or a
/// connection's waker, which carries the stop too), so a stop ends it at once, whatever
/// the peer does.
package struct ConnectionDriver {
    /// The connection, owned by this thread.
    package let connection: TLSConnection
    /// The server it belongs to: its stop and its counters.
    package let server: ServerState
    /// How long a read without a deadline waits for the client before the server gives
    /// up on it (``ConnectionLimits/idleTimeout``); `nil`: until a stop.
    package var idleTimeout: Duration? = nil

    /// A driver for `connection`, counting in `server`.
    package init(connection: TLSConnection, server: ServerState, idleTimeout: Duration? = nil) {
        self.connection = connection
        self.server = server
        self.idleTimeout = idleTimeout
    }

    /// What one read produced.
    package enum ReadResult {
        /// This many bytes were read into the buffer.
        case bytes(Int)
        /// The peer closed or reset, the connection failed, it was idle too long, or the
        /// server is stopping (tell them apart with ``ServerState/isStopping``).
        case ended
        /// Nothing came before the deadline.
        case timedOut
        /// The waker given to the read was raised (and is left raised) before anything came.
        case woken
    }

    /// Runs the TLS handshake; `false` when it failed or did not finish by `deadline` — the
    /// connection is then closed and counted in ``ServerCounters/handshakeFailures``, unless
    /// it was the server stopping that cut the wait short. A handshake the client failed
    /// counts even if the stop comes before this thread sees it: a loaded machine must not
    /// make a failure vanish. A client refused for its ALPN offer
    /// (``TLSError/Kind-swift.struct/applicationProtocolRefused``) is told to
    /// `refusedProtocol` instead, when given, and not counted here.
    package func handshake(deadline: ContinuousClock.Instant, refusedProtocol: (() -> Void)? = nil) -> Bool {
        while true {
            let readiness: Readiness
            switch connection.handshake() {
            case .done: return true
            case .wantRead: readiness = .readable
            case .wantWrite: readiness = .writable
            case .failed(let error) where error.kind == .applicationProtocolRefused && refusedProtocol != nil:
                refusedProtocol?()
                connection.close()
                return false
            case .closed, .failed:
                server.count { $0.handshakeFailures += 1 }
                connection.close()
                return false
            }
            guard wait(readiness, deadline: deadline) else {
                if !server.isStopping { server.count { $0.handshakeFailures += 1 } }
                connection.close()
                return false
            }
        }
    }

    /// Reads what is available into `buffer`, waiting until `deadline`. Without one it
    /// waits until a stop or, when there is an ``idleTimeout``, until the client has sent
    /// nothing for that long since `idleSince` (`nil`: now): the connection is then
    /// `.ended` as if the client had left, and counted in ``ServerCounters/idleTimeouts``.
    /// With a `waker` the wait polls it instead of the stop signal (it must carry the stop:
    /// ``ServerState/watchStop(_:)``) and ends `.woken` when it is raised.
    package func read(
        into buffer: UnsafeMutableRawBufferPointer, until deadline: ContinuousClock.Instant? = nil,
        idleSince: ContinuousClock.Instant? = nil, waker: WakeSignal? = nil
    ) -> ReadResult {
        let idleDeadline = deadline == nil ? idleTimeout.map { (idleSince ?? ContinuousClock.now) + $0 } : nil
        let limit = deadline ?? idleDeadline
        var signalled = false
        let result = connection.read(into: buffer) { readiness in
            let outcome = wait(readiness, deadline: limit, signal: waker ?? server.stopSignal)
            signalled = outcome == .signalled
            return outcome == .ready
        }
        switch result {
        case .bytes(let count): return .bytes(count)
        case .closed, .failed: return .ended
        case .timedOut:
            // `wait` also gives up on a stop, a waker or a failed poll: only a passed
            // deadline is a time-out.
            if signalled, waker != nil, !server.isStopping { return .woken }
            guard let limit, !server.isStopping, ContinuousClock.now >= limit else { return .ended }
            if deadline != nil { return .timedOut }
            server.count { $0.idleTimeouts += 1 }
            return .ended
        }
    }

    /// Writes every byte as TLS records of whatever size OpenSSL chooses (one per call
    /// here, for 6-byte responses and chunks below 16 KiB); `false` on failure or timeout.
    package func writeAll(_ bytes: ArraySlice<UInt8>, deadline: ContinuousClock.Instant) -> Bool {
        let written = bytes.withUnsafeBytes { bytes in
            try? connection.write(bytes, waiting: { wait($0, deadline: deadline) })
        }
        return written == bytes.count
    }

    /// Closes the server's side — with close_notify first when `closeNotify` — then reads
    /// and discards what the client still sends, until it closes, `linger` passes or the
    /// server stops, and only then closes the socket. Closing a socket with unread bytes
    /// makes the kernel answer with a reset, which can destroy what was written before it.
    package func finish(closeNotify: Bool, linger: Duration) {
        if closeNotify { _ = connection.shutdown() }
        connection.shutdownWrite()
        let deadline = ContinuousClock.now + linger
        var scratch = [UInt8](repeating: 0, count: 16 * 1024)
        while ContinuousClock.now < deadline && !server.isStopping,
            case .bytes = scratch.withUnsafeMutableBytes({ buffer in
                connection.read(into: buffer, waiting: { $0 == .readable && wait(.readable, deadline: deadline) })
            })
        {}
        connection.close()
    }

    /// Closes with a TCP reset.
    package func reset() {
        connection.reset()
    }

    /// Waits for `readiness` until `deadline` (`nil`: none) or the stop; `false` when the
    /// deadline passed, the wait failed or the server is stopping.
    private func wait(_ readiness: Readiness, deadline: ContinuousClock.Instant?) -> Bool {
        wait(readiness, deadline: deadline, signal: server.stopSignal) == .ready
    }

    /// Waits for `readiness` until `deadline` (`nil`: none) or `signal`; `nil` when the
    /// server is stopping or the wait failed.
    private func wait(
        _ readiness: Readiness, deadline: ContinuousClock.Instant?, signal: WakeSignal
    ) -> WaitResult? {
        guard !server.isStopping else { return nil }
        return try? connection.waitUntil(readiness, deadline: deadline, orSignal: signal)
    }
}
