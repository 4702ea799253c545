package import APNSupport
internal import Glibc

extension TLSConnection {
    /// Writes `bytes` to the socket in the clear, before the handshake has started: the
    /// set-up of a tunnel the TLS session then runs through (an HTTP proxy's `CONNECT`).
    /// Waits with `poll()` on the socket and `signal` for as long as `plan` says.
    ///
    /// - Throws: ``TLSError/Kind-swift.struct/write`` (with errno) when the socket fails,
    ///   ``TLSError/Kind-swift.struct/timeout`` when `plan` gives up.
    package func writePreamble(_ bytes: [UInt8], orSignal signal: WakeSignal, plan: () -> WaitPlan) throws(TLSError) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { buffer in
                Glibc.send(socket.descriptor, buffer.baseAddress! + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
            }
            if written > 0 {
                offset += written
                continue
            }
            let code = currentErrno
            guard written < 0, code == EAGAIN || code == EWOULDBLOCK || code == EINTR else {
                throw TLSError(.write, "writing to \(peerDescription) before TLS", errno: code)
            }
            guard try Poller.wait(socket.descriptor, events: Readiness.writable.pollEvents, orSignal: signal, plan: plan)
            else {
                throw TLSError(.timeout, "writing to \(peerDescription) before TLS: gave up waiting")
            }
        }
    }

    /// Reads what the socket holds in the clear, before the handshake has started, into
    /// `buffer`, waiting for at least one byte as ``writePreamble(_:orSignal:plan:)`` waits.
    ///
    /// - Returns: the count read; 0 when the peer closed the connection.
    /// - Throws: ``TLSError/Kind-swift.struct/read`` (with errno) when the socket fails,
    ///   ``TLSError/Kind-swift.struct/timeout`` when `plan` gives up.
    package func readPreamble(
        into buffer: UnsafeMutableRawBufferPointer, orSignal signal: WakeSignal, plan: () -> WaitPlan
    ) throws(TLSError) -> Int {
        while true {
            let count = Glibc.recv(socket.descriptor, buffer.baseAddress, buffer.count, 0)
            if count >= 0 { return count }
            let code = currentErrno
            guard code == EAGAIN || code == EWOULDBLOCK || code == EINTR else {
                throw TLSError(.read, "reading from \(peerDescription) before TLS", errno: code)
            }
            guard try Poller.wait(socket.descriptor, events: Readiness.readable.pollEvents, orSignal: signal, plan: plan)
            else {
                throw TLSError(.timeout, "reading from \(peerDescription) before TLS: gave up waiting")
            }
        }
    }
}

extension TLSConnection {
    /// Names the peer `description` in errors and logs from now on: the server at the
    /// end of a tunnel, where the socket's peer is only the proxy in between.
    package func describePeer(as description: String) {
        peerDescription = description
    }
}
