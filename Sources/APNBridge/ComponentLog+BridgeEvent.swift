@_spi(APNBridge) import APN

extension ComponentLog {
    /// A ``BridgeEvent`` in the bridge's log: connections at debug, error responses at
    /// info, what the bridge handles itself (a refused or held connection, the upstream or
    /// the store failing) at notice, so the default handler (warnings) adds nothing to
    /// what `apn bridge` already writes. Tenants and connection numbers only: no token.
    func record(_ event: BridgeEvent) {
        switch event {
        case .connectionOpened(let tenant, let connection):
            self(.debug, "connection opened", metadata: ["tenant": tenant, "connection": "\(connection)"])
        case .connectionHeld(let tenant, let connection, let duration):
            self(.notice, "connection held while the upstream backs off",
                 metadata: ["tenant": tenant, "connection": "\(connection)", "for": "\(duration)"])
        case .connectionRefused(let tenant, let refusal):
            self(.notice, "connection refused", metadata: ["tenant": tenant ?? "none", "reason": refusal.rawValue])
        case .connectionClosed(let tenant, let connection):
            self(.debug, "connection closed", metadata: ["tenant": tenant, "connection": "\(connection)"])
        case .errorResponse(let tenant, let connection, let status, let identifier):
            self(.info, "error response", metadata: [
                "tenant": tenant, "connection": "\(connection)", "status": "\(status.rawValue)", "identifier": "\(identifier)",
            ])
        case .refusalDistance(let tenant, let connection, let notifications):
            self(.info, "refusal distance", metadata: [
                "tenant": tenant, "connection": "\(connection)", "notifications": "\(notifications)",
            ])
        case .upstreamFailed(let tenant, let reason, let backoff):
            self(.notice, "upstream failed: \(reason)", metadata: ["tenant": tenant, "backoff": "\(backoff)"])
        case .upstreamRecovered(let tenant):
            self(.info, "upstream recovered", metadata: ["tenant": tenant])
        case .feedbackStoreFailed(let error, let waiting):
            self(.notice, "feedback store failed: \(error)", metadata: ["waiting": "\(waiting)"])
        case .feedbackStoreRecovered:
            self(.info, "feedback store recovered")
        case .bridgesTakenOver(let instances, let recovered):
            self(.notice, "took over the state of bridges that died",
                 metadata: ["instances": "\(instances)", "recovered": "\(recovered)"])
        case .storeLockLost(let error):
            self(.error, "the store's session ended and the bridge's lock with it; stop the bridge: \(error)")
        case .recordNotWritten(let tenant):
            self(.warning, "a client was told where to resend from before the resend record was stored", metadata: ["tenant": tenant])
        }
    }
}
