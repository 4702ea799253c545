extension SessionConfiguration {
    /// The session settings for one socket of a connection with these options.
    init(_ options: Connection.Options) {
        self.init()
        command = options.format
        cacheLength = options.cacheLength.map { max(1, $0) }
        autoAdjustCache = options.autoAdjustCache
        maxCacheLength = max(cacheLength ?? 1, options.maxCacheLength)
        cacheMemoryLimit = max(1, options.cacheMemoryLimit / max(1, options.maxConnections))
        confirmationInterval = options.confirmationInterval.map { max(1, $0) }
        pacesAfterRejections = options.pacesAfterRejections
        // The I/O thread reports what the peer's TCP acknowledged before every timer and
        // close, so the grace window never accepts what is still in the send queue.
        tracksAcknowledgements = true
        connectionRetryLimit = max(0, options.connectionRetryLimit)
        retriesConnections = options.retriesConnections
        initialBackoff = options.initialBackoff
        maxBackoff = options.maxBackoff
        connectTimeout = options.connectTimeout.turnedOffIfZero
        idleTimeout = options.connectionTimeout.turnedOffIfZero
        writeStallTimeout = options.writeStallTimeout.turnedOffIfZero
        graceWindow = options.shutdownGraceWindow
        buffersNotifications = options.buffersNotifications
        silentClosePolicy = options.silentClosePolicy
        writeBatchBytes = options.fastMode ? 256 * 1024 : 16 * 1024
        settleWindow = options.settleWindow
    }
}

extension PoolConfiguration {
    /// The pool settings of a connection with these options.
    init(_ options: Connection.Options) {
        self.init()
        session = SessionConfiguration(options)
        minConnections = options.minConnections
        maxConnections = options.maxConnections
    }
}
