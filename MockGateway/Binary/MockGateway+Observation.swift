import APNGatewayServer

extension MockGateway {
    /// Every accepted notification so far that is still kept in memory (all of them unless
    /// the ``RecordRetention`` discarded some), in the order accepted (a snapshot).
    public var records: [Record] {
        records(from: 0)
    }

    /// How many notifications were accepted so far: ``records`` `.count`, without building
    /// the records.
    public var recordCount: Int {
        shared.recordCount
    }

    /// The notifications accepted after the first `start`, in the order accepted (a
    /// snapshot): ``records`` `[start...]`, building only those. Empty when `start` is not
    /// below ``recordCount``; records no longer kept are skipped. A reader that follows the
    /// records as they arrive passes the count it has already seen.
    ///
    /// - Precondition: `start >= 0`.
    public func records(from start: Int) -> [Record] {
        shared.records(from: start)
    }

    /// Every error the gateway answered with (or closed for, on command 0) so far, in order,
    /// confirmation markers aside (``markerCount``).
    public var rejections: [RejectionRecord] {
        shared.read { $0.rejections }
    }

    /// Confirmation markers the gateway answered so far: notifications with an empty token
    /// and an empty payload (`01 <id> <expiry> 0000 0000`, or a frame whose items 1 and 2 are
    /// both empty), which a client writes so that the answer confirms everything it wrote
    /// before (swift-apn's confirmed flush, an awaited `send`). Answered as Apple's gateway
    /// answered them — status 2, then the connection closes — but kept out of
    /// ``rejections`` and, like every refusal, out of ``records``. An empty token with a
    /// payload is not a marker: it is a rejection.
    public var markerCount: Int {
        shared.read { $0.markerCount }
    }

    /// Gateway connections whose TLS handshake completed.
    public var connectionCount: Int {
        shared.read { $0.connectionCount }
    }

    /// Connections (gateway or feedback) whose TLS handshake failed or timed out, e.g.
    /// clients without an acceptable certificate.
    public var handshakeFailureCount: Int {
        shared.server.counters.handshakeFailures
    }

    /// Feedback connections served (including those with nothing to serve).
    public var feedbackConnectionCount: Int {
        shared.read { $0.feedbackConnectionCount }
    }

    /// Feedback tuples taken from the queue by feedback connections so far: each is served
    /// once, so this is what clients were sent, or would have been had they read to the end
    /// (a client that closes early loses the rest, as with Apple's service).
    package var servedFeedbackCount: Int {
        shared.read { $0.servedFeedbackCount }
    }

    /// Waits until at least `count` notifications were accepted, or `timeout` passes, or
    /// the gateway stops. A condition wait: it returns as soon as the count is reached.
    ///
    /// - Returns: whether the count was reached.
    public func waitForRecords(count: Int, timeout: Duration) -> Bool {
        shared.waitForRecords(count: count, until: .now + timeout)
    }

    /// Waits until the gateway has answered (or decided to answer) at least `count` errors,
    /// or `timeout` passes, or the gateway stops: a rejection is recorded when it is
    /// decided, before any delay, lag or latency the faults put before its error response.
    ///
    /// - Returns: whether the count was reached.
    public func waitForRejections(count: Int, timeout: Duration) -> Bool {
        shared.wait(until: .now + timeout) { $0.rejections.count >= count }
    }

    /// Gateway connections open now: handshake done, and neither side has ended them (a
    /// connection that lingers reading after the gateway closed its side still counts).
    public var openConnectionCount: Int {
        shared.read { $0.openConnectionCount }
    }

    /// Waits until at most `count` gateway connections are open — e.g. 0 once a client
    /// closed and the gateway has read all it had received — or `timeout` passes, or the
    /// gateway stops.
    ///
    /// - Returns: whether the count was reached.
    public func waitForOpenConnections(atMost count: Int, timeout: Duration) -> Bool {
        shared.wait(until: .now + timeout) { $0.openConnectionCount <= count }
    }

    /// Waits until at least `count` handshakes failed, or `timeout` passes, or the gateway stops.
    ///
    /// - Returns: whether the count was reached.
    public func waitForHandshakeFailures(count: Int, timeout: Duration) -> Bool {
        shared.server.wait(until: .now + timeout) { $0.handshakeFailures >= count }
    }
}

extension MockGateway {
    /// Connections (gateway or feedback) closed at once because
    /// ``Configuration/maxConnections`` were open on their listener.
    public var refusedConnectionCount: Int {
        shared.server.counters.overLimit
    }

    /// Connections (gateway or feedback) closed at once because the system would not start
    /// a thread for them (its thread or memory limit).
    public var threadStartFailureCount: Int {
        shared.server.counters.threadStartFailures
    }

    /// Gateway connections closed because the client sent nothing for
    /// ``Configuration/idleTimeout``.
    public var idleTimeoutCount: Int {
        shared.server.counters.idleTimeouts
    }
}
