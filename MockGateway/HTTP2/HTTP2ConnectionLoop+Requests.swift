import APN
import APNHTTP2
import APNTLS

extension HTTP2ConnectionLoop {
    /// Handles the events of one read: validates each complete request (in arrival order),
    /// then judges them all under one lock and answers — at once, or when the response
    /// delay has passed. Returns ``End/reset`` when a request reached
    /// ``HTTP2MockGateway/Faults/resetAfterRequests``: nothing of this read is judged then.
    func handle(_ events: [HTTP2Event]) -> End? {
        // Worked on as locals, put back at the end: a class's stored properties are checked
        // for exclusive access on every use, which cost each request several checks.
        var authenticator = self.authenticator
        var ids = self.ids
        defer {
            self.authenticator = authenticator
            self.ids = ids
        }
        reading: for event in events {
            switch event {
            case .request(let streamID, let headers, let body):
                requestCount += 1
                if let limit = faults.resetAfterRequests, requestCount >= limit {
                    pending.removeAll(keepingCapacity: true)
                    shared.update { $0.summary.resets += 1 }
                    return .reset
                }
                if let limit = faults.stallAfterRequests, requestCount >= limit {
                    // Hung: this request and all that follow go unanswered. Those before it
                    // in this read are judged (recorded) but, like every answer not yet
                    // written, never sent: `serve` writes nothing more.
                    stalled = true
                    shared.update { $0.summary.stalls += 1 }
                    break reading
                }
                if let last = goawayLastStream, streamID > last { continue }
                pending.append(PendingRequest(
                    streamID: streamID,
                    verdict: validator.check(headers: headers, body: body, authenticator: &authenticator, ids: &ids)))
                if let limit = streamLimitAfterToken, authenticator.teamID != nil {
                    // The first valid provider token: the connection gets its full stream limit.
                    streamLimitAfterToken = nil
                    try? session.advertiseMaxConcurrentStreams(limit)
                }
                if let limit = faults.goawayAfterRequests, requestCount >= limit, !goingAway {
                    goAway(lastStreamID: streamID, reason: faults.goawayReason.rawValue)
                }
            case .streamRejected:
                rejectedStreams += 1
            default:
                break
            }
        }
        guard !pending.isEmpty || rejectedStreams > 0 else { return nil }
        shared.update { ledger in
            ledger.judge(&pending, connection: number, into: &answers)
            ledger.summary.rejectedStreams += rejectedStreams
        }
        rejectedStreams = 0
        let delay = faults.responseDelay
        let due = ContinuousClock.now + delay
        for answer in answers {
            if delay > .zero { delayed.hold(answer, until: due) } else { submit(answer) }
        }
        answers.removeAll(keepingCapacity: true)
        return nil
    }

    /// Submits the held answers that are due at `now`.
    func releaseDueAnswers(at now: ContinuousClock.Instant) {
        while let answer = delayed.popDue(at: now) { submit(answer) }
    }

    /// Sends a GOAWAY with `{"reason":"IdleTimeout"}` once the connection has received
    /// nothing for ``HTTP2MockGateway/Faults/idleTimeout``.
    func closeIfIdle(at now: ContinuousClock.Instant) {
        guard !goingAway, let timeout = faults.idleTimeout, now - lastActivity >= timeout else { return }
        goAway(lastStreamID: nil, reason: "IdleTimeout")
    }

    /// Sends a GOAWAY (NO_ERROR) naming `lastStreamID` (or the last stream processed) with
    /// Apple's JSON in its debug data; the connection ends once the streams up to it are
    /// answered.
    private func goAway(lastStreamID: Int32?, reason: String) {
        goingAway = true
        goawayLastStream = lastStreamID
        let debugData = Array((#"{"reason":"# + JSONText.quoted(reason) + "}").utf8)
        // Only an id the client never opened is refused, and these are its own.
        try? session.submitGoaway(errorCode: .noError, lastStreamID: lastStreamID, debugData: debugData)
        shared.update { $0.summary.goaways += 1 }
    }

    private func submit(_ answer: Answer) {
        let (headers, body) = answer.response(uniqueID: sendsUniqueID ? uniqueIDs.next() : nil)
        // Fails only when the client reset the stream meanwhile: nothing to answer then.
        try? session.submitResponse(streamID: answer.streamID, headers: headers, body: body)
    }
}
