extension MockGateway {
    /// Every accepted notification so far, in the order accepted (a snapshot).
    public var records: [Record] {
        shared.read { $0.records }
    }

    /// Every error the gateway answered with (or closed for, on command 0) so far, in order.
    public var rejections: [RejectionRecord] {
        shared.read { $0.rejections }
    }

    /// Gateway connections whose TLS handshake completed.
    public var connectionCount: Int {
        shared.read { $0.connectionCount }
    }

    /// Connections (gateway or feedback) whose TLS handshake failed or timed out, e.g.
    /// clients without an acceptable certificate.
    public var handshakeFailureCount: Int {
        shared.read { $0.handshakeFailureCount }
    }

    /// Feedback connections served (including those with nothing to serve).
    public var feedbackConnectionCount: Int {
        shared.read { $0.feedbackConnectionCount }
    }

    /// Waits until at least `count` notifications were accepted, or `timeout` passes, or
    /// the gateway stops. A condition wait: it returns as soon as the count is reached.
    ///
    /// - Returns: whether the count was reached.
    public func waitForRecords(count: Int, timeout: Duration) -> Bool {
        shared.wait(until: .now + timeout) { $0.records.count >= count }
    }

    /// Waits until at least `count` handshakes failed, or `timeout` passes, or the gateway stops.
    ///
    /// - Returns: whether the count was reached.
    public func waitForHandshakeFailures(count: Int, timeout: Duration) -> Bool {
        shared.wait(until: .now + timeout) { $0.handshakeFailureCount >= count }
    }
}
