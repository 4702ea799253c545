import APNWire

/// The faults that shape one HTTP/2 connection (``HTTP2MockGateway/Faults/goawayAfterRequests``,
/// ``HTTP2MockGateway/Faults/resetAfterRequests``, ``HTTP2MockGateway/Faults/responseDelay``,
/// ``HTTP2MockGateway/Faults/idleTimeout``) as that connection follows them. Re-read from
/// the ledger only when ``GatewayState/faultsRevision`` moved: one atomic load a read.
struct ConnectionFaults {
    private(set) var goawayAfterRequests: Int?
    private(set) var goawayReason = ProviderReason.shutdown
    private(set) var resetAfterRequests: Int?
    private(set) var stallAfterRequests: Int?
    private(set) var responseDelay = Duration.zero
    private(set) var idleTimeout: Duration?
    /// The revision last read; -1 so that the first ``refresh(from:)`` reads.
    private var revision = -1

    /// Picks up changed faults.
    mutating func refresh(from shared: GatewayState<HTTP2Ledger>) {
        let current = shared.faultsRevision
        guard current != revision else { return }
        revision = current
        let faults = shared.read { $0.faults }
        goawayAfterRequests = faults.goawayAfterRequests
        goawayReason = faults.goawayReason
        resetAfterRequests = faults.resetAfterRequests
        stallAfterRequests = faults.stallAfterRequests
        responseDelay = max(.zero, faults.responseDelay)
        idleTimeout = faults.idleTimeout
    }
}
