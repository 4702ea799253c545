/// What a server (binary, feedback or HTTP/2 listener) allows a connection: how many may
/// be open at once and how long one may sit idle. Copied out of the configuration.
package struct ConnectionLimits: Sendable {
    /// The most connections served at once per listener (each holds a thread, from accept
    /// to close); one accepted beyond is closed at once and counted in
    /// ``ServerCounters/overLimit``.
    package var maxConnections: Int
    /// How long a connection may send nothing before the server closes it (counted in
    /// ``ServerCounters/idleTimeouts``); `nil`: as long as it likes.
    package var idleTimeout: Duration?

    /// Limits of `maxConnections` open at once, each idle at most `idleTimeout`.
    package init(maxConnections: Int, idleTimeout: Duration?) {
        self.maxConnections = maxConnections
        self.idleTimeout = idleTimeout
    }

    /// The listen backlog of every server listener: connections the kernel completes
    /// before the accept thread takes them (the usual 128 overflows when hundreds of
    /// clients connect at once; Linux caps it at `net.core.somaxconn`, 4096 by default).
    package static let listenBacklog: Int32 = 1024
}

/// The connections a server closed on its own — because of its ``ConnectionLimits``, a
/// failed handshake, or because it could not serve them — kept in ``ServerState``.
package struct ServerCounters: Sendable, Hashable {
    /// Connections whose TLS handshake failed or timed out.
    package var handshakeFailures = 0
    /// Accepted while ``ConnectionLimits/maxConnections`` were open: closed at once.
    package var overLimit = 0
    /// Accepted, but no thread could be started for them (the system's thread or memory
    /// limit): closed at once.
    package var threadStartFailures = 0
    /// Closed after ``ConnectionLimits/idleTimeout`` without a byte from the client.
    package var idleTimeouts = 0
    /// Closed after ``ConnectionSettings/frameTimeout`` with a frame begun and unfinished.
    package var frameTimeouts = 0

    /// No connection closed yet.
    package init() {}
}
