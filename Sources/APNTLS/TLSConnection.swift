package import APNSupport
internal import COpenSSL
internal import Glibc

/// One TLS connection over a non-blocking TCP socket, owning its OpenSSL `SSL` and the
/// socket. Each step (``handshake()``, ``read(into:)``, ``write(_:)``, ``shutdown()``)
/// returns a ``TLSStep`` at once; ``waitUntil(_:deadline:)`` waits for the socket with
/// `poll()`.
///
/// Not thread-safe: one thread (the I/O thread) drives a connection.
package final class TLSConnection {
    let ssl: OpaquePointer
    let socket: Socket
    /// The peer address as given (host name or IP literal) and port, for error context;
    /// a tunnel's opener renames it for the server at the tunnel's end
    /// (``describePeer(as:)``).
    package internal(set) var peerDescription: String
    /// Keeps the context alive as long as the SSL that references it.
    private let contextHandle: SSLContextHandle

    init(context: SSLContextHandle, socket: Socket, isClient: Bool, peerDescription: String) throws(TLSError) {
        OpenSSLErrorQueue.clear()
        guard let ssl = SSL_new(context.pointer) else {
            throw .openSSL(.configuration, "creating an SSL for \(peerDescription)")
        }
        self.ssl = ssl
        self.socket = socket
        self.contextHandle = context
        self.peerDescription = peerDescription
        guard SSL_set_fd(ssl, socket.descriptor) == 1 else {
            throw .openSSL(.configuration, "attaching the socket for \(peerDescription)")
        }
        if isClient { SSL_set_connect_state(ssl) } else { SSL_set_accept_state(ssl) }
    }

    deinit {
        SSL_free(ssl)
    }

    /// The socket's file descriptor, for callers that `poll()` many connections at once.
    /// `-1` after ``close()``.
    package var fileDescriptor: Int32 { socket.descriptor }

    /// Whether the last handshake or read step stopped because OpenSSL needs more bytes
    /// from the socket. OpenSSL has then used everything it buffers, so a wait must `poll()`
    /// even though ``hasBufferedData``'s `SSL_has_pending` may still be true: the first bytes
    /// of a record whose rest has not arrived count as pending. Skipping the poll for them
    /// spun a core for as long as a peer dribbled a record (issue #25).
    private var needsSocketInput = false

    /// Whether OpenSSL holds bytes (decrypted, or whole records not yet decrypted) that the
    /// next ``read(into:)`` or ``handshake()`` can use without the socket: read them before
    /// waiting for the socket to become readable. False when the last such step asked for
    /// more from the socket, whatever part of a record OpenSSL already holds.
    package var hasBufferedData: Bool { !needsSocketInput && SSL_has_pending(ssl) == 1 }

    /// Whether a whole record's decrypted bytes wait to be returned by ``read(into:)``
    /// (`SSL_pending`). Unlike ``hasBufferedData`` it is false for whole records read
    /// ahead but not yet decrypted, so only a loop that reads without read-ahead may use it
    /// to decide whether to poll.
    package var hasDecryptedData: Bool { SSL_pending(ssl) > 0 }

    /// The negotiated protocol version, e.g. "TLSv1.3".
    package var protocolVersion: String { String(cString: SSL_get_version(ssl)) }

    /// The peer's certificate, when it sent one.
    package var peerCertificate: TLSCertificate? {
        SSL_get1_peer_certificate(ssl).map { TLSCertificate(taking: $0) }
    }

    /// One step of the TLS handshake: `.done(0)` once finished.
    package func handshake() -> TLSStep {
        OpenSSLErrorQueue.clear()
        let result = SSL_do_handshake(ssl)
        let savedErrno = currentErrno
        if result == 1 {
            needsSocketInput = false
            return .done(0)
        }
        let step = classify(result, errno: savedErrno, kind: .handshake, "TLS handshake with \(peerDescription)")
        needsSocketInput = step.asksForSocketInput
        return step
    }

    /// Reads decrypted bytes into `buffer`: `.done(n)` with n > 0, or why not.
    package func read(into buffer: UnsafeMutableRawBufferPointer) -> TLSStep {
        guard let base = buffer.baseAddress, !buffer.isEmpty else { return .done(0) }
        OpenSSLErrorQueue.clear()
        let result = SSL_read(ssl, base, Int32(clamping: buffer.count))
        let savedErrno = currentErrno
        if result > 0 {
            needsSocketInput = false
            return .done(Int(result))
        }
        let step = classify(result, errno: savedErrno, kind: .read, "reading from \(peerDescription)")
        needsSocketInput = step.asksForSocketInput
        return step
    }

    /// Encrypts and writes bytes: `.done(n)` with 0 < n ≤ count (partial writes are
    /// enabled), or why not. After `.wantWrite`/`.wantRead`, call again with the same
    /// bytes (they may live at a different address).
    package func write(_ bytes: UnsafeRawBufferPointer) -> TLSStep {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return .done(0) }
        OpenSSLErrorQueue.clear()
        let result = SSL_write(ssl, base, Int32(clamping: bytes.count))
        let savedErrno = currentErrno
        if result > 0 { return .done(Int(result)) }
        let step = classify(result, errno: savedErrno, kind: .write, "writing to \(peerDescription)")
        // A write that must read first (a TLS 1.2 renegotiation) has used what was buffered too.
        if step.asksForSocketInput { needsSocketInput = true }
        return step
    }

    /// Sends close_notify: `.done(0)` once sent (the peer's close_notify is not awaited).
    package func shutdown() -> TLSStep {
        OpenSSLErrorQueue.clear()
        let result = SSL_shutdown(ssl)
        let savedErrno = currentErrno
        if result >= 0 { return .done(0) }
        return classify(result, errno: savedErrno, kind: .shutdown, "sending close_notify to \(peerDescription)")
    }

    /// Closes the socket without close_notify (the peer sees `.closed(clean: false)`).
    package func close() {
        socket.close()
    }

    /// Closes the socket with a TCP reset (the peer sees ``TLSError/Kind-swift.struct/connectionReset``).
    package func reset() {
        socket.reset()
    }

    /// Waits with `poll()` until the socket is ready or `deadline` passes.
    ///
    /// - Returns: `false` when the deadline passed; `true` when ready (or when OpenSSL
    ///   already buffers data and `readiness` is ``Readiness/readable``).
    package func waitUntil(_ readiness: Readiness, deadline: ContinuousClock.Instant) throws(TLSError) -> Bool {
        if readiness == .readable && hasBufferedData { return true }
        return try Poller.wait(socket.descriptor, for: readiness, deadline: deadline)
    }

    /// Waits with `poll()` until the socket is readable (when `readable`) or writable (when
    /// `writable`), or `deadline` passes: the wait of a loop that reads and writes at once.
    /// With neither, it waits out the time.
    ///
    /// - Returns: `false` when the deadline passed; `true` when ready (or when OpenSSL
    ///   already buffers data and `readable` is asked).
    package func waitUntil(readable: Bool, writable: Bool, deadline: ContinuousClock.Instant) throws(TLSError) -> Bool {
        if readable && hasBufferedData { return true }
        let events = (readable ? Readiness.readable.pollEvents : 0) | (writable ? Readiness.writable.pollEvents : 0)
        return try Poller.wait(socket.descriptor, events: events, deadline: deadline)
    }

    /// Waits with `poll()` until the socket is ready, `signal` is raised, or `deadline`
    /// passes (`nil`: no deadline): the wait of a thread another thread must be able to
    /// stop at once. The signal is left raised.
    ///
    /// - Returns: ``WaitResult/ready`` when ready (or when OpenSSL already buffers data and
    ///   `readiness` is ``Readiness/readable``), else what ended the wait.
    package func waitUntil(
        _ readiness: Readiness, deadline: ContinuousClock.Instant?, orSignal signal: WakeSignal
    ) throws(TLSError) -> WaitResult {
        if readiness == .readable && hasBufferedData { return .ready }
        return try Poller.wait(socket.descriptor, events: readiness.pollEvents, deadline: deadline, orSignal: signal)
    }

    /// Waits until the connection is reset (or otherwise fails), `signal` is raised, or
    /// `deadline` passes (`nil`: none), without reading: the wait of a connection that reads
    /// nothing for now (a server holding back its reads) but must see a client that
    /// abandoned it. A peer's orderly close (FIN) does not end it: what the peer sent before
    /// it may still wait unread. The signal is left raised.
    ///
    /// - Returns: ``WaitResult/ready`` once the connection was reset or failed, else what
    ///   ended the wait.
    package func waitForReset(deadline: ContinuousClock.Instant?, orSignal signal: WakeSignal) throws(TLSError)
        -> WaitResult
    {
        // No event asked: poll() reports POLLERR and POLLHUP (a reset, or both directions
        // shut) whatever is asked, and nothing else.
        try Poller.wait(socket.descriptor, events: 0, deadline: deadline, orSignal: signal)
    }

    /// Whether the connection was reset or failed (`poll()` reports `POLLERR` or
    /// `POLLHUP`), without waiting or reading: the kernel still returns bytes it received
    /// before a reset, and a server that must not act on what an abandoning client sent
    /// asks this before it reads.
    package var wasReset: Bool {
        (try? Poller.wait(socket.descriptor, events: 0, deadline: .now)) == true
    }

    /// ``waitUntil(readable:writable:deadline:)`` that also ends when `signal` is raised,
    /// and whose `deadline` may be `nil` (none). The signal is left raised.
    package func waitUntil(
        readable: Bool, writable: Bool, deadline: ContinuousClock.Instant?, orSignal signal: WakeSignal
    ) throws(TLSError) -> WaitResult {
        if readable && hasBufferedData { return .ready }
        let events = (readable ? Readiness.readable.pollEvents : 0) | (writable ? Readiness.writable.pollEvents : 0)
        return try Poller.wait(socket.descriptor, events: events, deadline: deadline, orSignal: signal)
    }

    /// Lets OpenSSL read as much as the socket holds into its record buffer instead of one
    /// record header, then its body, per read: fewer system calls for a bulk reader.
    package func setReadAhead(_ on: Bool) {
        SSL_set_read_ahead(ssl, on ? 1 : 0)
    }

    /// Enables or disables TCP_NODELAY (on by default for connections APNTLS opens).
    package func setNoDelay(_ on: Bool) throws(TLSError) {
        try socket.setNoDelay(on)
    }

    /// Bytes OpenSSL has handed to the socket so far (handshake, records and alerts):
    /// the ciphertext position of everything written. Compare with
    /// ``unacknowledgedByteCount()`` to learn how much of it the peer's TCP has received.
    package var bytesSentToSocket: UInt64 {
        UInt64(BIO_number_written(SSL_get_wbio(ssl)))
    }

    /// Bytes handed to the socket that the peer's TCP has not acknowledged yet (Linux
    /// `SIOCOUTQ`): what is still in the kernel's send queue. Still answers after the
    /// connection ended (a reset keeps the count), but not after ``close()``: `nil` then,
    /// or when the system call fails.
    package func unacknowledgedByteCount() -> Int? {
        socket.unacknowledgedByteCount()
    }

    /// Enables or disables TCP keepalive probes.
    package func setKeepAlive(_ on: Bool) throws(TLSError) {
        try socket.setKeepAlive(on)
    }
}
