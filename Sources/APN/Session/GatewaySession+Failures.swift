import APNWire

// Error responses, lost connections, resends and termination: every path that takes an
// entry out of the queues without a write gives it an outcome or puts it back.
extension GatewaySession {
    /// One error response: settles the written entries and requeues what must be resent.
    mutating func handleErrorResponse(_ response: ErrorResponse, now: Timestamp) {
        // Unknown status bytes are treated as 255 (none), never trusted for special cases.
        let status = response.status.isKnown ? response.status : .unknown
        let unsent = takeInFlight()
        var resend: [SessionEntry] = []
        var resendIsPossiblyDuplicated = false

        if let offset = writtenOffset(of: response.identifier) {
            let isMarker = sent[offset].isFlushMarker
            let olderEvidence: Acceptance.Evidence =
                status == .shutdown ? .shutdownIdentifier : isMarker ? .flush : .laterIdentifier
            for _ in 0..<offset { accept(removeFirstWritten(), olderEvidence) }
            let entry = removeFirstWritten()
            if isMarker {
                // The marker's answer (status 2 for its empty token, or 10 naming it as the
                // last success) settles everything written before it.
                emit(.event(.flushed(confirmed: true)))
            } else if status == .shutdown {
                // Status 10 names the last notification that succeeded.
                accept(entry, .shutdownIdentifier)
                emit(.event(.transmissionError(status, nil)))
                if evictedCount > 0 { reportCacheMiss(shortfall: evictedCount) }
            } else if let tag = entry.tag {
                if entry.flags.contains(.evicted) {
                    reportCacheMiss(shortfall: evictedCount + 1)
                    emit(.event(.transmissionError(status, tag)))
                    emit(.errorCallback(.status(.unknown), nil))
                } else {
                    emit(.event(.transmissionError(status, tag)))
                    emit(.errorCallback(.status(status), tag))
                }
                emit(.outcome(tag, .rejected(status)))
            }
        } else {
            // Not among the unresolved written entries: identifier 0 (the gateway could not
            // tell), one already accepted by the grace window, or one never written here.
            if let shortfall = shortfallBeforeCache(response.identifier) {
                reportCacheMiss(shortfall: shortfall)
            }
            emit(.event(.transmissionError(status, nil)))
            if status != .shutdown { emit(.errorCallback(.status(.unknown), nil)) }
            // Only an identifier older than everything written proves the rest was dropped.
            resendIsPossiblyDuplicated = !isOlderThanWritten(response.identifier)
        }
        // What is still written came after the named one, so the gateway discarded it;
        // without a usable identifier, it may as well have been taken.
        let lostReason: UnknownFateReason = resendIsPossiblyDuplicated ? .unattributedError : .evictedFromCache
        while !sent.isEmpty {
            let entry = removeFirstWritten()
            if entry.flags.contains(.evicted), !entry.isFlushMarker {
                if let tag = entry.tag { emit(.outcome(tag, .unknownFate(entry.earlierCopyUncertainty ?? lostReason))) }
            } else {
                resend.append(entry)
            }
        }
        // Resends go first, then what the socket never took, then what was pushed later.
        awaitingMarker = false
        pending.prepend(contentsOf: unsent)
        // Status 10 rejects nothing: what follows it is resent even without buffering.
        requeue(resend, possiblyDuplicated: resendIsPossiblyDuplicated, afterRejection: status != .shutdown)
        phase = .closing
        emit(.close)
    }

    /// The connection ended without an error response: requeue what the socket never
    /// took, apply the silent-close policy to what it took, tell waiting entries.
    mutating func connectionLost(_ error: APNError, now: Timestamp) {
        resolveByGraceWindow(now)
        let unsent = takeInFlight()
        var unconfirmed: [SessionEntry] = []
        while !sent.isEmpty {
            let entry = removeFirstWritten()
            if entry.isFlushMarker {
                unconfirmed.append(entry)
            } else if configuration.silentClosePolicy == .resend, !entry.flags.contains(.evicted) {
                unconfirmed.append(entry)
            } else if let tag = entry.tag {
                emit(.outcome(tag, .unknownFate(.unconfirmedAtClose)))
            }
        }
        awaitingMarker = false
        pending.prepend(contentsOf: unsent)
        requeue(unconfirmed, possiblyDuplicated: true, afterRejection: false, afterClose: true)
        reportWaiting(.error(error))
    }

    /// The gateway refused the connection right after the handshake: what was written on it
    /// was not taken, so it goes back to the front of `pending` as it was — no retry
    /// counted, not marked possibly duplicated — except evicted entries, whose payload is
    /// gone: their fate is unknown.
    mutating func takeBackAfterRefusal() {
        let unsent = takeInFlight()
        var written: [SessionEntry] = []
        while !sent.isEmpty {
            let entry = removeFirstWritten()
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
    /// retry limit (512 when exhausted) and `buffersNotifications`.
    mutating func requeue(
        _ entries: [SessionEntry], possiblyDuplicated: Bool, afterRejection: Bool, afterClose: Bool = false
    ) {
        var kept: [SessionEntry] = []
        kept.reserveCapacity(entries.count)
        for var entry in entries {
            if entry.isFlushMarker {
                kept.append(entry)
                continue
            }
            guard let tag = entry.tag else { continue }
            if afterRejection, !configuration.buffersNotifications {
                // Discarded by the gateway, unless the error did not say what it rejected.
                let uncertainty = entry.earlierCopyUncertainty ?? (possiblyDuplicated ? .unattributedError : nil)
                emit(.outcome(tag, uncertainty.map { .unknownFate($0) } ?? .failed(APNError.notResent())))
                continue
            }
            if entry.retriesLeft == 0 {
                fail(entry, APNError.retryLimitExceeded(), status: .retryLimitExceeded)
                continue
            }
            if entry.retriesLeft > 0 { entry.retriesLeft -= 1 }
            resendCount += 1
            if possiblyDuplicated, !entry.flags.contains(.possiblyDuplicated) {
                entry.flags.insert(afterClose ? [.possiblyDuplicated, .resentAfterClose] : .possiblyDuplicated)
            }
            kept.append(entry)
        }
        pending.prepend(contentsOf: kept)
    }

    /// Takes every in-flight entry back, in order, and empties the outbound buffer; `sent`
    /// then holds written entries only.
    mutating func takeInFlight() -> [SessionEntry] {
        var entries: [SessionEntry] = []
        entries.reserveCapacity(inFlightCount)
        while sent.count > takenCount {
            let entry = sent.removeLast()
            if entry.isFlushMarker { awaitingMarker = false }
            entries.append(entry)
        }
        entries.reverse()
        inFlightTaken = 0
        outboundBytes.clear()
        return entries
    }

    /// errorCallback(error, n) once for each notification waiting to be sent.
    mutating func reportWaiting(_ code: ErrorCallbackCode) {
        for offset in 0..<pending.count where !pending[offset].flags.contains(.connectionErrorReported) {
            pending[offset].flags.insert(.connectionErrorReported)
            if let tag = pending[offset].tag { emit(.errorCallback(code, tag)) }
        }
    }

    /// Fails everything queued with `status` (513 or 514) and refuses later pushes (515).
    mutating func terminate(status: StatusCode, _ error: APNError) {
        let unsent = takeInFlight()
        pending.prepend(contentsOf: unsent)
        while let entry = pending.popFirst() {
            if entry.isFlushMarker {
                emit(.event(.flushed(confirmed: false)))
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
    mutating func fail(_ entry: SessionEntry, _ error: APNError, status: StatusCode) {
        guard let tag = entry.tag else { return }
        emit(.errorCallback(.status(status), tag))
        emit(.event(.transmissionError(status, tag)))
        emit(.outcome(tag, entry.earlierCopyUncertainty.map { .unknownFate($0) } ?? .failed(error)))
    }

    /// Reports the entry accepted, moving its tag into the report (one reference count
    /// operation fewer per notification than copying it).
    mutating func accept(_ entry: consuming SessionEntry, _ evidence: Acceptance.Evidence) {
        let duplicated = entry.flags.contains(.possiblyDuplicated)
        guard let tag = entry.tag.take() else { return }
        emit(.outcome(consume tag, .accepted(Acceptance(evidence: evidence, possiblyDuplicated: duplicated))))
    }

    mutating func reportCacheMiss(shortfall: Int) {
        emit(.event(.cacheTooSmall(shortfall)))
        if configuration.autoAdjustCache {
            cacheLength = min(max(cacheLength, cacheLength + 2 * shortfall), configuration.maxCacheLength)
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

    /// Whether `identifier` was written on this connection before everything in `written`.
    func isOlderThanWritten(_ identifier: UInt32) -> Bool {
        guard identifier != 0 else { return false }
        guard takenCount > 0 else { return true }
        let distance = Self.identifierDistance(from: identifier, to: sent[0].identifier)
        return distance > 0 && distance < UInt32(1) << 31
    }

    /// For an identifier older than the cache: how far the cache fell short.
    func shortfallBeforeCache(_ identifier: UInt32) -> Int? {
        guard identifier != 0, evictedCount < takenCount, isOlderThanWritten(identifier) else { return nil }
        return Int(Self.identifierDistance(from: identifier, to: sent[evictedCount].identifier))
    }
}
