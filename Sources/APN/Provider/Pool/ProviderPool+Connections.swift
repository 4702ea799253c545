import APNHTTP2

/// Opening connections, backing off, and closing what ended.
extension ProviderPool {
    /// Attempt `attempt` connected to `peer`: the number of the new connection, for the
    /// driver's socket; nil when the driver is to close the socket (the pool closed meanwhile,
    /// or the session could not start, which counts as a failed attempt).
    mutating func connected(attempt: Int, peer: String, now: Timestamp) -> Int? {
        guard connecting == attempt else { return nil }
        connecting = nil
        guard !closed else { return nil }
        let session: HTTP2Session
        do throws(HTTP2Error) {
            session = try HTTP2Session(role: .client, configuration: configuration.session)
        } catch {
            let failure = ProviderError(code: .protocolError, message: "starting HTTP/2: \(error)")
            event(.connectionFailed(failure))
            failedAttempt(failure, now: now)
            return nil
        }
        nextConnectionNumber += 1
        let connection = ProviderPoolConnection(number: nextConnectionNumber, session: session, peer: peer, now: now)
        connections.append(connection)
        // The failure count is cleared by the first answer, not by the handshake: a server
        // that takes connections and answers nothing is backed off from.
        nextAttemptAt = nil
        event(.connected(peer))
        return connection.number
    }

    /// Attempt `attempt` failed (TCP, TLS, ALPN, credentials).
    mutating func connectFailed(attempt: Int, _ error: ProviderError, now: Timestamp) {
        guard connecting == attempt else { return }
        connecting = nil
        event(.connectionFailed(error))
        failedAttempt(error, now: now)
    }

    /// Counts a failed attempt (a connect that failed, or a connection that answered
    /// nothing) and waits before the next; at the retry limit, with no usable connection,
    /// what waits for one fails.
    mutating func failedAttempt(_ error: ProviderError, now: Timestamp) {
        failedAttempts += 1
        let hopeless = error.code == .authentication || failedAttempts >= max(1, configuration.connectionRetryLimit)
        let givesUp = hopeless && !connections.contains { $0.isUsable && !$0.isDone }
        if givesUp {
            for completion in scheduler.failWaiting(error) { complete(completion) }
            failedAttempts = 0
        }
        let delay = scheduler.backoff(afterRetry: max(1, failedAttempts))
        event(.connectAttemptFailed(error, nextAttemptIn: givesUp ? nil : delay))
        nextAttemptAt = now + delay
    }

    /// Counts `connection` as a failed attempt, once.
    mutating func countFailedAttempt(_ connection: ProviderPoolConnection, _ error: ProviderError, now: Timestamp) {
        guard !connection.countedAsFailedAttempt else { return }
        connection.countedAsFailedAttempt = true
        failedAttempt(error, now: now)
    }

    /// Whether another connection would take ready requests: none is being opened, every
    /// usable one is full, fewer than `maxConnections` are usable, and draining ones
    /// (GOAWAY, waiting for their last answers) do not pile up past twice that.
    var wantsConnection: Bool {
        guard connecting == nil, !closed, scheduler.readyCount > 0 else { return false }
        let limit = max(1, configuration.maxConnections)
        guard connections.count < 2 * limit else { return false }
        var usable = 0
        for connection in connections where connection.isUsable {
            if connection.capacity(limit: streamLimit) > 0 { return false }
            usable += 1
        }
        return usable < limit
    }

    /// Opens a connection when ``wantsConnection`` and no backoff holds it back.
    mutating func maintainConnections(now: Timestamp) {
        guard wantsConnection else { return }
        if let nextAttemptAt, nextAttemptAt > now { return }
        attempts += 1
        connecting = attempts
        actions.append(.connect(attempt: attempts))
    }

    /// Connection `number`'s socket ended on its own: `failure` nil for a clean close by the
    /// peer.
    mutating func socketEnded(_ number: Int, failure: ProviderError?, now: Timestamp) {
        guard let connection = connection(number) else { return }
        if let failure {
            if connection.failure == nil { connection.failure = failure }
        } else {
            connection.ended = true
        }
        closeEndedConnections(now: now)
    }

    /// Closes every connection that failed, ended, drained or whose session is done. What it
    /// still had in flight fails as may-have-been-delivered; one that answered nothing counts
    /// as a failed attempt.
    mutating func closeEndedConnections(now: Timestamp) {
        guard connections.contains(where: \.isDone) else { return }
        var kept: [ProviderPoolConnection] = []
        for connection in connections {
            guard connection.isDone else {
                kept.append(connection)
                continue
            }
            let cause = connection.failure?.message ?? "the connection ended"
            let lost = ProviderError(
                code: .connectionFailed,
                message: "\(cause) before Apple answered; the notification may have been delivered, so it is not sent again",
                mayHaveBeenDelivered: true)
            let open = connection.streams.values.map(\.id).sorted()
            connection.streams.removeAll()
            connection.busySince = nil
            for id in open { complete(scheduler.failInFlight(id, lost)) }
            // A failed socket takes no more bytes (and OpenSSL none after a fatal error).
            actions.append(
                .close(
                    connection: connection.number,
                    lastBytes: connection.failure == nil ? lastBytes(of: connection) : nil))
            event(.disconnected(connection.peer, connection.failure))
            if connection.hung || (connection.answered == 0 && connection.carried > 0) {
                // Nothing answered (dropped at once, hung): back off as from a failed
                // attempt rather than reconnect in a loop.
                let cause =
                    connection.failure
                    ?? connection.goawayBeforeAnswer.map { .lost("the server sent GOAWAY before any answer (error code \($0))") }
                    ?? .lost("the server closed the connection, answering nothing")
                countFailedAttempt(connection, cause, now: now)
            }
        }
        connections = kept
    }
}

extension ProviderError {
    /// The connection ended or failed.
    static func lost(_ what: String) -> ProviderError {
        ProviderError(code: .connectionFailed, message: what)
    }
}
