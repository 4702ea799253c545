// What each client's events say in its log, at which level. Per-notification events are
// left out (outcomes, the errorCallback and the events carry them, and a log line per
// notification would cost at full speed), and so is every device token: a message names
// peers, counts, delays and errors only.
extension ComponentLog {
    /// A ``Connection``'s event: sockets at debug, failures it handles and giving up at
    /// notice — the caller hears of giving up through its outcomes and error callback, so the
    /// default handler (warnings) does not say it a second time on standard error.
    func record(_ event: ConnectionEvent) {
        switch event {
        case .connected(let open): self(.debug, "socket connected", metadata: ["open_sockets": "\(open)"])
        case .disconnected(let open): self(.debug, "socket closed", metadata: ["open_sockets": "\(open)"])
        case .timeout: self(.debug, "idle socket closed (connectionTimeout)")
        case .socketError(let error): self(.notice, "socket error: \(error.message)")
        case .connectAttemptFailed(let error, let next):
            self(.notice, "connection attempt failed: \(error.message)", metadata: ["next_attempt_in": next.map { "\($0)" } ?? "none"])
        case .cacheFull(let limit):
            self(.notice, "resend cache full: confirming before writing more", metadata: ["limit_bytes": "\(limit)"])
        case .cacheTooSmall(let shortfall):
            self(.notice, "an error response named a notification older than the resend cache holds; raise cacheLength or leave it nil",
                 metadata: ["shortfall": "\(shortfall)"])
        case .graceWindowTooShort(let count):
            self(.notice, "the gateway answered after the grace window; raise shutdownGraceWindow",
                 metadata: ["misreported": "\(count)"])
        case .error(let error): self(.notice, "connection gave up: \(error.message)")
        case .transmitted, .completed, .transmissionError: break
        }
    }

    /// A ``Feedback`` poller's event: entries at info, a failed visit and polling stopped
    /// (unusable credentials, which its error event reports) at notice.
    func record(_ event: FeedbackEvent) {
        switch event {
        case .feedback(let entries): self(.info, "feedback entries delivered", metadata: ["count": "\(entries.count)"])
        case .feedbackError(let error): self(.notice, "feedback visit failed: \(error.message)")
        case .error(let error): self(.notice, "feedback polling stopped: \(error.message)")
        }
    }

    /// A ``Provider``'s event: connections at debug, GOAWAY and new provider tokens at
    /// info (the time it was signed, never the token), failed attempts at notice.
    func record(_ event: ProviderEvent) {
        switch event {
        case .connected(let peer): self(.debug, "connected", metadata: ["peer": peer])
        case .disconnected(let peer, nil): self(.debug, "disconnected", metadata: ["peer": peer])
        case .disconnected(let peer, let error?): self(.notice, "connection lost: \(error.message)", metadata: ["peer": peer])
        case .connectionFailed(let error): self(.notice, "connection failed: \(error.message)")
        case .connectAttemptFailed(let error, let next):
            self(.notice, "connection attempt failed: \(error.message)", metadata: ["next_attempt_in": next.map { "\($0)" } ?? "none"])
        case .goaway(let peer, let code, _):
            self(.info, "GOAWAY", metadata: ["peer": peer, "error_code": "\(code)"])
        case .pingAnswered(let peer): self(.trace, "PING answered", metadata: ["peer": peer])
        case .tokenRenewed(let issuedAt): self(.info, "provider token signed", metadata: ["issued_at": "\(issuedAt)"])
        case .failed: break
        }
    }
}
