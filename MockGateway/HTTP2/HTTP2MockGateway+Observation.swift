import APNGatewayServer

extension HTTP2MockGateway {
    /// A snapshot of the requests answered 200 so far, in answer order, with their headers
    /// and bodies: every one unless the ``RecordRetention`` let some go.
    public var records: [Record] { records(from: 0) }

    /// How many requests were answered 200 so far (``records`` `.count` without building them).
    public var recordCount: Int { shared.recordCount }

    /// The requests answered 200 after the first `start` (``records`` `[start...]`, only
    /// those built; none when `start` is at or past ``recordCount``): a reader following the
    /// records passes the count it has seen.
    ///
    /// - Precondition: `start >= 0`.
    public func records(from start: Int) -> [Record] { shared.records(from: start) }

    /// At most `limit` of ``records(from:)``: a reader that copies records in batches.
    ///
    /// - Precondition: `start >= 0`, `limit >= 0`.
    public func records(from start: Int, limit: Int) -> [Record] {
        shared.records(from: start, limit: limit)
    }

    /// Frees the records up to and including the one with `sequence`, once a consumer has
    /// copied them (`apn mock-gateway --record` does). Under
    /// ``RecordRetention/Overflow/pauseConnections`` the connections waiting for room go on.
    public func releaseRecords(through sequence: Int) {
        shared.releaseRecords(upTo: sequence)
    }

    /// Waits until at least `count` notifications were accepted, or `timeout` passes, or
    /// the gateway stops. A condition wait: it returns as soon as the count is reached.
    ///
    /// - Returns: whether the count was reached.
    public func waitForRecords(count: Int, timeout: Duration) -> Bool {
        shared.waitForRecords(count: count, until: .now + timeout)
    }

    /// What the gateway has done so far (a snapshot): answers by status and reason,
    /// connections, the faults that ended connections.
    public var summary: Summary {
        let counters = shared.server.counters
        return shared.read { $0.currentSummary(counters: counters) }
    }

    /// Waits until the gateway has decided at least `count` answers (accepted or refused),
    /// or `timeout` passes, or the gateway stops.
    ///
    /// - Returns: whether the count was reached.
    public func waitForAnswers(count: Int, timeout: Duration) -> Bool {
        shared.wait(until: .now + timeout) { $0.currentSummary(counters: shared.server.counters).statuses.values.reduce(0, +) >= count }
    }

    /// Connections open now: served (handshake done, `h2` agreed) and not yet ended.
    public var openConnectionCount: Int {
        shared.read { $0.openConnectionCount }
    }

    /// Waits until at most `count` connections are open, or `timeout` passes, or the
    /// gateway stops.
    ///
    /// - Returns: whether the count was reached.
    public func waitForOpenConnections(atMost count: Int, timeout: Duration) -> Bool {
        shared.wait(until: .now + timeout) { $0.openConnectionCount <= count }
    }

    /// Waits until the ``Summary`` satisfies `condition` (e.g. `{ $0.refusedConnections >= 1 }`),
    /// or `timeout` passes, or the gateway stops.
    ///
    /// - Returns: whether it did.
    public func waitForSummary(timeout: Duration, until condition: (Summary) -> Bool) -> Bool {
        // The server's counters are read inside the ledger's lock: never the other way round.
        shared.wait(until: .now + timeout) { condition($0.currentSummary(counters: shared.server.counters)) }
    }

    /// What the next requests meet: the faults in force, counting ones showing what is left.
    public var faults: Faults { shared.read { $0.faults } }

    /// Replaces the faults: requests judged from now on meet them, and each connection picks
    /// up its connection faults at its next read.
    public func setFaults(_ faults: Faults) { shared.updateFaults { $0 = faults } }

    /// Changes the faults in place, atomically for the connections judging requests (e.g.
    /// `gateway.updateFaults { $0.failNextRequests(3) }`).
    public func updateFaults(_ change: (inout Faults) -> Void) { shared.updateFaults(change) }
}
