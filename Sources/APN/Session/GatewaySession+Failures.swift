import APNWire

// Error responses, lost connections, resends and termination: every path that takes an
// entry out of the queues without a write gives it an outcome or puts it back.
extension GatewaySession {
    /// One error response: settles the written entries and requeues what must be resent.
    /// Its steps: place the named entry, settle it and what came before it (or report what
    /// an answer that names nothing unsettled means), decide the fate of what came after it,
    /// requeue, close.
    mutating func handleErrorResponse(_ response: ErrorResponse, now: Timestamp) {
        // A status byte outside Apple's table reaches the caller as it came (node-apn passed
        // it through); only status 10 is treated specially, and an unknown byte never is.
        let unsent = takeInFlight()
        let resendIsPossiblyDuplicated: Bool
        if let offset = writtenOffset(of: response.identifier) {
            settleThroughNamed(response, at: offset, now: now)
            resendIsPossiblyDuplicated = false
        } else {
            resendIsPossiblyDuplicated = !reportUnplacedAnswer(response)
        }
        let resend = takeDiscardedAfterAnswer(possiblyDuplicated: resendIsPossiblyDuplicated)
        // Resends go first, then what the socket never took, then what was pushed later.
        awaitingMarker = false
        pending.prepend(contentsOf: unsent)
        // Status 10 rejects nothing: what follows it is resent even without buffering.
        requeue(resend, possiblyDuplicated: resendIsPossiblyDuplicated, afterRejection: response.status != .shutdown)
        phase = .closing(failure: nil)
        emit(.close())
    }

    /// Settles the written entries up to the one the answer names, `sent[offset]`: those
    /// before it are accepted (by the marker, status 10 or a later identifier), it by its status.
    private mutating func settleThroughNamed(_ response: ErrorResponse, at offset: Int, now: Timestamp) {
        let status = response.status
        let isMarker = sent[offset].isFlushMarker
        if configuration.pacesAfterRejections { observeAnswer(response, at: offset, isMarker: isMarker, now: now) }
        let olderEvidence: Acceptance.Evidence =
            status == .shutdown ? .shutdownIdentifier : isMarker ? .flush : .laterIdentifier
        for _ in 0..<offset { accept(removeFirstWritten(), olderEvidence) }
        settleNamed(removeFirstWritten(), status: status)
    }

    /// Decides what the answer to `sent[offset]` tells the pacing: the gateway's answer time,
    /// and — a rejected notification — how many a connection carries before a rejection.
    private mutating func observeAnswer(_ response: ErrorResponse, at offset: Int, isMarker: Bool, now: Timestamp) {
        let rejection = !isMarker && response.status != .shutdown
        let run = Int(Self.identifierDistance(from: configuration.firstIdentifier, to: response.identifier))
        pacing.observe(answerNanos: now.nanoseconds &- sent[offset].writtenAt.nanoseconds, run: rejection ? run : nil)
    }

    /// Decides the named entry's outcome: a marker confirms the flush, status 10 accepts
    /// the notification, any other status rejects it (reported without its tag if evicted).
    private mutating func settleNamed(_ entry: consuming SessionEntry<Record>, status: StatusCode) {
        if entry.isFlushMarker {
            // The marker's answer (status 2 for its empty token, or 10 naming it as the
            // last success) settles everything written before it.
            if !entry.isAutomaticMarker { emit(.event(.flushed(confirmed: true))) }
        } else if status == .shutdown {
            // Status 10 names the last notification that succeeded.
            accept(entry, .shutdownIdentifier)
            emit(.event(.transmissionError(status, nil)))
            if evictedCount > 0 { reportCacheMiss(shortfall: evictedCount) }
        } else if let tag = entry.tag {
            if entry.flags.contains(.evicted) {
                // Out of the cache: node-apn's README gives `transmissionError(code,
                // null)` and `errorCallback(255, null)`; the outcome still names it.
                reportCacheMiss(shortfall: evictedCount + 1)
                emit(.event(.transmissionError(status, nil)))
                emit(.errorCallback(.status(.unknown), nil))
            } else {
                emit(.event(.transmissionError(status, tag)))
                emit(.errorCallback(.status(status), tag))
            }
            emit(.outcome(tag, .rejected(status)))
        }
    }

    /// Decides what an answer naming no unsettled written entry means, reports it, and
    /// returns whether the named one was written here and settled already (else what is
    /// written may have been taken).
    private mutating func reportUnplacedAnswer(_ response: ErrorResponse) -> Bool {
        // Not among the unsettled written entries. Written here and settled already
        // (accepted by a grace window shorter than the gateway's answer took), it came
        // before everything unsettled, which the gateway then discarded. Identifier 0
        // (the gateway could not tell) or one never written on this connection cannot
        // be placed: what is unsettled may as well have been taken.
        let settledEarlier = wasWrittenHere(response.identifier)
        if settledEarlier { reportWronglyAccepted(from: response.identifier) }
        emit(.event(.transmissionError(response.status, nil)))
        if response.status != .shutdown { emit(.errorCallback(.status(.unknown), nil)) }
        return settledEarlier
    }

    /// Decides how many the grace window accepted wrongly: the entry `identifier` names,
    /// settled already, and what came after it up to the oldest unsettled one.
    private mutating func reportWronglyAccepted(from identifier: UInt32) {
        let end = takenCount > 0 ? sent[0].identifier : stream.lastTakenIdentifier
        let wronglyAccepted = Int(Self.identifierDistance(from: identifier, to: end)) + (takenCount > 0 ? 0 : 1)
        emit(.event(.graceWindowTooShort(wronglyAccepted)))
        if evictedCount > 0 {
            reportCacheMiss(shortfall: Int(Self.identifierDistance(from: identifier, to: sent[0].identifier)) + evictedCount)
        }
    }

    /// Takes the entries still written — after the named one, so discarded by the gateway;
    /// without a usable identifier, perhaps taken — and decides each one's fate: returned to
    /// be resent, or of unknown fate (evicted, or a possibly duplicated copy again in doubt).
    private mutating func takeDiscardedAfterAnswer(possiblyDuplicated: Bool) -> [SessionEntry<Record>] {
        var resend: [SessionEntry<Record>] = []
        let lostReason: UnknownFateReason = possiblyDuplicated ? .unattributedError : .evictedFromCache
        while takenCount > 0 {
            let entry = removeFirstWritten()
            if entry.isFlushMarker, possiblyDuplicated {
                // The answer may have been this marker's: it cannot confirm anything now.
                if !entry.isAutomaticMarker { emit(.event(.flushed(confirmed: false))) }
                continue
            }
            let twiceAmbiguous = possiblyDuplicated && entry.flags.contains(.possiblyDuplicated)
            if (entry.flags.contains(.evicted) || twiceAmbiguous), !entry.isFlushMarker {
                // Evicted: cannot be resent. Already a possibly duplicated copy, and again
                // perhaps taken: a third copy could reach the device, so it is not sent.
                if let tag = entry.tag { emit(.outcome(tag, .unknownFate(entry.earlierCopyUncertainty ?? lostReason))) }
            } else {
                resend.append(entry)
            }
        }
        return resend
    }

    /// The connection ended without an error response: requeue what the socket never
    /// took; apply the silent-close policy to what it took: resent as possibly duplicated,
    /// or reported of unknown fate with errorCallback(error, n) — the connection error
    /// decided its outcome. A notification is resent this way once: a copy that was itself
    /// resent as possibly duplicated, and is again unconfirmed, is of unknown fate, so that
    /// no device receives one more than twice.
    mutating func connectionLost(_ error: APNError, now: Timestamp) {
        resolveByGraceWindow(now)
        let unsent = takeInFlight()
        var unconfirmed: [SessionEntry<Record>] = []
        while takenCount > 0 {
            let entry = removeFirstWritten()
            if entry.isFlushMarker {
                // Written, then the connection went without an answer: it confirmed nothing
                // (and a gateway that drops every marker must not be sent it forever).
                if !entry.isAutomaticMarker { emit(.event(.flushed(confirmed: false))) }
                continue
            }
            let resendable = configuration.silentClosePolicy == .resend
                && !entry.flags.contains(.evicted) && !entry.flags.contains(.possiblyDuplicated)
            if resendable {
                unconfirmed.append(entry)
            } else if let tag = entry.tag {
                emit(.errorCallback(.error(error), tag))
                emit(.outcome(tag, .unknownFate(.unconfirmedAtClose)))
            }
        }
        awaitingMarker = false
        pending.prepend(contentsOf: unsent)
        requeue(unconfirmed, possiblyDuplicated: true, afterRejection: false, afterClose: true)
    }

    /// The gateway refused the connection right after the handshake, having processed
    /// nothing: what was written on it goes back to the front of `pending` as it was — no
    /// retry counted, not marked possibly duplicated — except evicted entries, whose
    /// payload is gone: their fate is unknown.
    mutating func takeBackAfterRefusal() {
        let unsent = takeInFlight()
        var written: [SessionEntry<Record>] = []
        while takenCount > 0 {
            let entry = removeFirstWritten()
            if entry.isAutomaticMarker { continue }
            if entry.flags.contains(.evicted), !entry.isFlushMarker {
                if let tag = entry.tag { emit(.outcome(tag, .unknownFate(entry.earlierCopyUncertainty ?? .evictedFromCache))) }
            } else {
                written.append(entry)
            }
        }
        awaitingMarker = false
        pending.prepend(contentsOf: unsent)
        pending.prepend(contentsOf: written)
    }

    /// Puts written entries back at the front of `pending`, in order, applying each one's
    /// retry limit (512 when exhausted) and `buffersNotifications`. Automatic markers are
    /// dropped: the session writes a new one when one is due.
    mutating func requeue(
        _ entries: [SessionEntry<Record>], possiblyDuplicated: Bool, afterRejection: Bool, afterClose: Bool = false
    ) {
        var kept: [SessionEntry<Record>] = []
        kept.reserveCapacity(entries.count)
        for var entry in entries {
            if entry.isFlushMarker {
                if !entry.isAutomaticMarker { kept.append(entry) }
                continue
            }
            guard let tag = entry.tag else { continue }
            // Marked first, so that an outcome decided below says the copy written before
            // may have been delivered.
            if possiblyDuplicated, !entry.flags.contains(.possiblyDuplicated) {
                entry.flags.insert(afterClose ? [.possiblyDuplicated, .resentAfterClose] : .possiblyDuplicated)
            }
            if afterRejection, !configuration.buffersNotifications {
                // Discarded by the gateway, unless the error did not say what it rejected.
                emit(.outcome(tag, entry.earlierCopyUncertainty.map { .unknownFate($0) } ?? .failed(APNError.notResent())))
                continue
            }
            if entry.retriesLeft == 0 {
                fail(entry, APNError.retryLimitExceeded(), status: .retryLimitExceeded)
                continue
            }
            if entry.retriesLeft > 0 { entry.retriesLeft -= 1 }
            resendCount += 1
            kept.append(entry)
        }
        pending.prepend(contentsOf: kept)
    }

    /// Takes every in-flight entry back, in order (automatic markers dropped), and empties
    /// the outbound buffer; `sent` then holds written entries only.
    mutating func takeInFlight() -> [SessionEntry<Record>] {
        var entries: [SessionEntry<Record>] = []
        entries.reserveCapacity(inFlightCount)
        while sent.count > takenCount {
            let entry = sent.removeLast()
            if entry.isFlushMarker { awaitingMarker = false }
            if !entry.isAutomaticMarker { entries.append(entry) }
        }
        entries.reverse()
        inFlightTaken = 0
        outboundBytes.clear()
        return entries
    }

    /// Fails everything queued with `status` (513 or 514) and refuses later pushes (515).
    mutating func terminate(status: StatusCode, _ error: APNError) {
        let unsent = takeInFlight()
        pending.prepend(contentsOf: unsent)
        while let entry = pending.popFirst() {
            if entry.isFlushMarker {
                if !entry.isAutomaticMarker { emit(.event(.flushed(confirmed: false))) }
            } else {
                fail(entry, error, status: status)
            }
        }
        emit(.event(.error(error)))
        phase = .terminated(error)
        // A shutdown asked for earlier completes now: nothing is left to send.
        if shutdownRequested { finishShutdown() }
    }

    /// A local failure with a node-apn code: errorCallback, transmissionError, and the
    /// outcome `failed` — or unknown fate when an earlier copy may have been delivered.
    mutating func fail(_ entry: SessionEntry<Record>, _ error: APNError, status: StatusCode) {
        guard let tag = entry.tag else { return }
        emit(.errorCallback(.status(status), tag))
        emit(.event(.transmissionError(status, tag)))
        emit(.outcome(tag, entry.earlierCopyUncertainty.map { .unknownFate($0) } ?? .failed(error)))
    }

    /// Reports the entry accepted, moving its tag into the report (one reference count
    /// operation fewer per notification than copying it).
    mutating func accept(_ entry: consuming SessionEntry<Record>, _ evidence: Acceptance.Evidence) {
        let duplicated = entry.flags.contains(.possiblyDuplicated)
        guard let tag = entry.tag.take() else { return }
        emit(.outcome(consume tag, .accepted(Acceptance(evidence: evidence, possiblyDuplicated: duplicated))))
    }

    mutating func reportCacheMiss(shortfall: Int) {
        emit(.event(.cacheTooSmall(shortfall)))
        if configuration.autoAdjustCache, let length = cacheLength {
            cacheLength = min(max(length, length + 2 * shortfall), configuration.maxCacheLength)
        }
    }

    // MARK: identifiers

    /// Steps from `a` to `b` in the identifier sequence 1 … 0xFFFFFFFF, 1 … (0 skipped).
    static func identifierDistance(from a: UInt32, to b: UInt32) -> UInt32 {
        b >= a ? b - a : (UInt32.max - a) + b
    }

    /// Where `identifier` stands in `written`: identifiers there are consecutive, so the
    /// position follows from the first one (O(1)), then is checked.
    func writtenOffset(of identifier: UInt32) -> Int? {
        guard identifier != 0, takenCount > 0 else { return nil }
        let distance = Self.identifierDistance(from: sent[0].identifier, to: identifier)
        guard distance < UInt32(takenCount) else { return nil }
        let offset = Int(distance)
        return sent[offset].identifier == identifier ? offset : nil
    }

    /// Whether a frame with `identifier` was taken by the socket on this connection
    /// (identifiers run from `firstIdentifier`, one per frame; once they have wrapped,
    /// every one but 0 was).
    func wasWrittenHere(_ identifier: UInt32) -> Bool {
        guard identifier != 0 else { return false }
        if stream.identifiersTaken >= UInt64(UInt32.max) { return true }
        let distance = Self.identifierDistance(from: configuration.firstIdentifier, to: identifier)
        return UInt64(distance) < stream.identifiersTaken
    }
}
