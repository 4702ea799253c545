import APNHTTP2

/// What arrives on a connection: bytes into its session, and what each HTTP/2 event means
/// for the requests.
extension ProviderPool {
    /// `bytes` arrived on connection `number`.
    mutating func received(_ bytes: UnsafeRawBufferPointer, on number: Int, now: Timestamp) {
        guard let connection = connection(number), connection.failure == nil else { return }
        connection.lastActivity = now
        do throws(HTTP2Error) {
            try connection.session.receive(bytes)
        } catch {
            connection.failure = ProviderError(code: .protocolError, message: "the server broke HTTP/2: \(error)")
        }
        // Each moved out and consumed where it is bound: iterating an array of them copied
        // every event's header list and body and released them twice.
        while let event = connection.session.nextEvent() { handle(event, on: connection, now: now) }
    }

    private mutating func handle(_ received: consuming HTTP2Event, on connection: ProviderPoolConnection, now: Timestamp) {
        switch consume received {
        case .response(let streamID, let headers, let body):
            guard let open = takeStream(streamID, on: connection, now: now) else { return }
            connection.answered += 1
            failedAttempts = 0
            answered(open, on: connection, headers: headers, body: body, now: now)
        case .streamClosed(let streamID, let code):
            guard let open = takeStream(streamID, on: connection, now: now) else { return }
            if code == .refusedStream {
                complete(scheduler.refused(open.id))
            } else {
                complete(
                    scheduler.failInFlight(
                        open.id,
                        ProviderError(
                            code: .connectionFailed,
                            message: "the server reset the stream (\(code)) before answering; it may have been delivered",
                            mayHaveBeenDelivered: true)))
            }
        case .streamRejected(let streamID, let reason):
            guard let open = takeStream(streamID, on: connection, now: now) else { return }
            complete(
                scheduler.failInFlight(
                    open.id,
                    ProviderError(
                        code: .protocolError, message: "a malformed answer (\(reason)); it may have been delivered",
                        mayHaveBeenDelivered: true)))
        case .goaway(_, let code, let debugData):
            // Before any answer, it counts as a failed attempt when it closes, once the streams
            // it refused are back in line (counted now, they would still be in flight, and
            // escape the retry limit's failing of what waits).
            if !connection.draining && connection.answered == 0 { connection.goawayBeforeAnswer = code.rawValue }
            connection.draining = true
            event(
                .goaway(
                    connection.peer, errorCode: code.rawValue, debugData: String(decoding: debugData, as: UTF8.self)))
        case .pingAcknowledged:
            if connection.pingSentAt != nil { event(.pingAnswered(connection.peer)) }
            connection.pingSentAt = nil
        case .remoteSettingsChanged:
            connection.settingsReceived = true
        case .request:
            break
        }
    }

    private mutating func answered(
        _ open: ProviderPoolConnection.OpenStream, on connection: ProviderPoolConnection, headers: HTTP2HeaderList,
        body: [UInt8], now: Timestamp
    ) {
        let answer = ProviderAnswer.readIfValid(headers: headers, body: body, exchange: open.isExchange)
        guard answer.status != 0 else {
            // Something answered: it may have been processed.
            complete(
                scheduler.failInFlight(
                    open.id,
                    ProviderError(
                        code: .protocolError, message: "\(ProviderAnswer.invalidStatus); it may have been delivered",
                        mayHaveBeenDelivered: true)))
            return
        }
        var canRetry = false
        if !ProviderAnswer.isSuccess(answer.status) {
            if answer.disposition == .renewTokenAndRetry {
                // Sent with a token already replaced: the current one may do. Otherwise
                // renew, when Apple allows an update now.
                if open.tokenIssuedAt != authorization.issuedAt {
                    canRetry = true
                } else if authorization.renewAfterExpiry() {
                    canRetry = true
                    if let issuedAt = authorization.issuedAt { event(.tokenRenewed(issuedAt: issuedAt)) }
                }
            }
            if answer.status == 503 && answer.reason == .shutdown {
                // Apple's server is going away: no new streams here; a new connection takes them.
                connection.draining = true
            }
        }
        // Completed where it will wait for the driver (its stream has ended: nothing to reset).
        if scheduler.answered(open.id, answer, now: now, canRenewToken: canRetry, into: &completions) {
            actions.append(.complete)
        }
    }

    /// The request stream `streamID` carried; the busy clock restarts (an answer or an end
    /// is progress) or stops when none is left open.
    private mutating func takeStream(
        _ streamID: Int32, on connection: ProviderPoolConnection, now: Timestamp
    ) -> ProviderPoolConnection.OpenStream? {
        guard let open = connection.streams.removeValue(forKey: streamID) else { return nil }
        connection.busySince = connection.streams.isEmpty ? nil : now
        return open
    }
}
