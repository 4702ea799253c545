/// What a gateway (binary, feedback or HTTP/2 listener) allows a connection: how many may
/// be open at once and how long one may sit idle. Copied out of the configuration.
struct ConnectionLimits: Sendable {
    /// The most connections served at once per listener (each holds a thread, from accept
    /// to close); one accepted beyond is closed at once and counted in
    /// ``ConnectionCounters/overLimit``.
    var maxConnections: Int
    /// How long a connection may send nothing before the gateway closes it (counted in
    /// ``ConnectionCounters/idleTimeouts``); `nil`: as long as it likes.
    var idleTimeout: Duration?

    /// The listen backlog of every gateway listener: connections the kernel completes
    /// before the accept thread takes them (the usual 128 overflows when hundreds of
    /// clients connect at once; Linux caps it at `net.core.somaxconn`, 4096 by default).
    static let listenBacklog: Int32 = 1024
}

/// The connections a gateway closed because of its ``ConnectionLimits`` or because it could
/// not serve them, kept in its ledger.
struct ConnectionCounters: Sendable, Hashable {
    /// Accepted while ``ConnectionLimits/maxConnections`` were open: closed at once.
    var overLimit = 0
    /// Accepted, but no thread could be started for them (the system's thread or memory
    /// limit): closed at once.
    var threadStartFailures = 0
    /// Closed after ``ConnectionLimits/idleTimeout`` without a byte from the client.
    var idleTimeouts = 0
}
