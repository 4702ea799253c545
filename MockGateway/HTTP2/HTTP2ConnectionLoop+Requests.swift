import APNSupport
import APNWire
import APNHTTP2
import APNGatewayServer

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
        var fieldStrings = self.fieldStrings
        // The same for the pending requests, swapped out and back (no copy; the capacity
        // kept): each request's append and its verdict, set in place, touch the array.
        var pending: [PendingRequest] = []
        swap(&pending, &self.pending)
        defer {
            self.authenticator = authenticator
            self.ids = ids
            self.fieldStrings = fieldStrings
            swap(&pending, &self.pending)
        }
        // One wall-clock reading for the requests of one read: they arrived together.
        let now = authenticator.now
        reading: for event in events {
            switch event {
            case .request(let streamID, let headers, let body):
                requestCount += 1
                lastRequestStream = max(lastRequestStream, streamID)
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
                pending.append(PendingRequest(streamID: streamID))
                pending[pending.count - 1].verdict = validator.check(
                    headers: headers, body: body, authenticator: &authenticator, ids: &ids, strings: &fieldStrings, now: now)
                if let limit = streamLimitAfterToken, authenticator.teamID != nil {
                    // The first valid provider token: the connection gets its full stream limit.
                    streamLimitAfterToken = nil
                    try? session.advertiseMaxConcurrentStreams(limit)
                }
                if let limit = faults.goawayAfterRequests, requestCount >= limit, !goingAway {
                    goAway(lastStreamID: streamID, reason: faults.goawayReason.rawValue, at: quiet.quietSince)
                }
            case .streamRejected:
                rejectedStreams += 1
            case .remoteSettingsChanged:
                // The client's SETTINGS, after its preface: it speaks HTTP/2.
                quiet.established = true
            default:
                break
            }
        }
        guard !pending.isEmpty || rejectedStreams > 0 else { return nil }
        let broadcasted = shared.update { ledger in
            let broadcasts = ledger.broadcasts.count
            ledger.judge(&pending, connection: number, into: &answers)
            ledger.summary.rejectedStreams += rejectedStreams
            return ledger.broadcasts.count != broadcasts
        }
        // ``HTTP2MockGateway/waitForBroadcasts(count:timeout:)`` waits uncounted: woken here.
        if broadcasted { shared.server.wakeWaiters(always: true) }
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

    /// Decides a GOAWAY (NO_ERROR) naming `lastStreamID` (or the last stream that carried a
    /// request) with Apple's JSON in its debug data. Streams above it are not processed;
    /// it is sent once the streams up to it are answered
    /// (``submitGoawayOnceAnswered()``), and the connection ends after.
    func goAway(lastStreamID: Int32?, reason: String, at now: ContinuousClock.Instant) {
        goingAway = true
        let last = lastStreamID ?? lastRequestStream
        goawayLastStream = last
        quiet.goawaySince = now
        unsentGoaway = (last, Array((#"{"reason":"# + JSONStringEscaping.quoted(reason) + "}").utf8))
    }

    /// Submits the decided GOAWAY once no stream up to its last-stream-id is open, that is
    /// every answer it covers has been handed to the output before it; `true` when it did.
    func submitGoawayOnceAnswered() -> Bool {
        guard let goaway = unsentGoaway, !session.hasOpenStream(atOrBelow: goaway.lastStreamID) else { return false }
        unsentGoaway = nil
        // Only an id the client never opened is refused, and these are its own (or 0).
        try? session.submitGoaway(errorCode: .noError, lastStreamID: goaway.lastStreamID, debugData: goaway.debugData)
        shared.update { $0.summary.goaways += 1 }
        return true
    }

    private func submit(_ answer: Answer) {
        if let response = answer.broadcast {
            try? session.submitResponse(streamID: answer.streamID, headers: response.headers, body: response.body)
            return
        }
        let uniqueID = sendsUniqueID ? uniqueIDs.nextID() : nil
        // Submitting fails only when the client reset the stream meanwhile: nothing to answer then.
        guard answer.refusal == nil else {
            let (headers, body) = answer.response(uniqueID: uniqueID)
            try? session.submitResponse(streamID: answer.streamID, headers: headers, body: body)
            return
        }
        // The common answer: fields laid out once, only the ids filled in, written from
        // their bits onto the stack.
        answer.apnsID.withUTF8 { apnsID in
            withUnsafeTemporaryAllocation(of: UnsafeRawBufferPointer.self, capacity: 2) { values in
                values.initializeElement(at: 0, to: apnsID)
                guard let uniqueID else {
                    try? session.submitResponse(
                        streamID: answer.streamID, Answer.accepted, valueBytes: UnsafeBufferPointer(rebasing: values[..<1]), body: [])
                    return
                }
                uniqueID.withUTF8 { uniqueID in
                    values.initializeElement(at: 1, to: uniqueID)
                    try? session.submitResponse(
                        streamID: answer.streamID, Answer.acceptedWithUniqueID, valueBytes: UnsafeBufferPointer(values), body: [])
                }
            }
        }
    }
}
