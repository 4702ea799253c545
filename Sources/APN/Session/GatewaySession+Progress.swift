import APNWire

// Making progress after every input: connecting, encoding, confirming by time, closing
// when idle or shut down, and keeping the timer request current.
extension GatewaySession {
    /// Called at the end of every input.
    mutating func pump(_ now: Timestamp) {
        switch phase {
        case .idle:
            if !pending.isEmpty {
                startConnect(now)
            } else if shutdownRequested {
                finishShutdown()
            }
        case .connected:
            fillOutbound(now)
            if queuedSinceCompleted, pending.isEmpty, inFlightCount == 0 {
                queuedSinceCompleted = false
                emit(.event(.completed))
            }
            closeIfShutDown(now)
        case .terminated:
            if shutdownRequested { finishShutdown() }
        case .backingOff where shutdownRequested && unresolvedCount == 0:
            // Nothing to send: no reason to wait out the backoff (an idle minConnections
            // socket retrying a dead gateway would otherwise hold shutdown for minutes).
            phase = .idle
            finishShutdown()
        case .connecting, .closing, .backingOff:
            break
        }
        updateTimer(now)
    }

    mutating func startConnect(_ now: Timestamp) {
        phase = .connecting(deadline: configuration.connectTimeout.map { now + $0 }, aborted: false)
        emit(.connect)
    }

    /// Encodes pending entries until the outbound buffer holds `writeBatchBytes`, the cache
    /// is full, or the connection has written its paced window.
    mutating func fillOutbound(_ now: Timestamp) {
        guard !awaitingMarker, !pending.isEmpty else { return }
        while !awaitingMarker, outboundBytes.readableBytes < configuration.writeBatchBytes, !pending.isEmpty {
            if cacheMemory >= cacheMemoryLimit {
                askForRoom()
                return
            }
            if !withinPacedWindow(now) { return }
            let flags = pending[0].flags
            encode(pending.removeFirst())
            if !flags.isEmpty { confirmPromptly(after: flags) }
        }
    }

    /// Writes an automatic marker right after the entry just encoded (with `flags`) when
    /// its outcome is better known in a round trip than by the grace window:
    /// - a resent copy, the last of a run of them: it may already be delivered, and the
    ///   grace window would leave it open to a close that would make it of unknown fate;
    /// - an awaited one (`Connection.send`) with nothing queued behind it: its caller
    ///   waits, and nothing else is there to be held up by the marker.
    mutating func confirmPromptly(after flags: SessionEntryFlags) {
        guard !awaitingMarker, configuration.command != .simple else { return }
        let lastResent = flags.contains(.possiblyDuplicated) && pending.first?.flags.contains(.possiblyDuplicated) != true
        let awaitedAlone = flags.contains(.awaited) && pending.isEmpty
        if lastResent || awaitedAlone { encode(.flushMarker(automatic: true)) }
    }

    /// The cache is full and more waits: stop encoding (backpressure, never eviction) and
    /// write a marker, whose answer accepts everything written before it — far sooner than
    /// the grace window would.
    mutating func askForRoom() {
        if !cacheFullReported {
            cacheFullReported = true
            emit(.event(.cacheFull(limit: cacheMemoryLimit)))
        }
        // Command 0 has no identifiers to confirm with: the grace window frees the room.
        if configuration.command != .simple { encode(.flushMarker(automatic: true)) }
    }

    /// Gives the entry the next identifier, appends its frame to the outbound buffer (asking
    /// the driver to write when the buffer was empty) and moves it in flight. Nothing is
    /// encoded after a flush marker until the gateway has answered it.
    mutating func encode(_ entry: consuming SessionEntry<Record>) {
        let wasEmpty = outboundBytes.isEmpty
        let identifier = takeIdentifier()
        let start = outboundBytes.readableBytes
        writeFrame(of: entry, identifier: identifier)
        entry.identifier = identifier
        entry.frameLength = UInt32(truncatingIfNeeded: outboundBytes.readableBytes &- start)
        let isMarker = entry.isFlushMarker
        sent.append(entry)
        if wasEmpty { emit(.write) }
        if isMarker {
            awaitingMarker = true
            stream.encodedSinceMarker = 0
        } else {
            stream.encodedSinceMarker += 1
            // Rolling confirmation: at most `interval` notifications are ever unconfirmed
            // when the connection drops without a word.
            if let interval = configuration.confirmationInterval, configuration.command != .simple,
               stream.encodedSinceMarker >= interval {
                encode(.flushMarker(automatic: true))
            }
        }
    }

    /// Appends the entry's frame. Separate, with the entry borrowed, so its token and payload
    /// are lent to the encoder as they are: read from the consumed (so mutable) entry in
    /// `encode`, each was retained and released around the call, per notification.
    mutating func writeFrame(of entry: borrowing SessionEntry<Record>, identifier: UInt32) {
        outboundBytes.writeNotification(
            configuration.command, identifier: identifier, expiry: entry.expiry, priority: entry.priority,
            token: entry.token, payload: entry.payload)
    }

    mutating func takeIdentifier() -> UInt32 {
        let identifier = nextIdentifier
        nextIdentifier = identifier == .max ? 1 : identifier + 1
        return identifier
    }

    /// The first in-flight frame was taken whole by the socket: its entry joins the resend
    /// cache — counted against its memory, or evicting the oldest cached entry beyond
    /// `cacheLength`.
    mutating func markTaken(_ now: Timestamp) {
        sent[takenCount].writtenAt = now
        if emitsTransmitted, let tag = sent[takenCount].tag {
            emit(.event(.transmitted(tag)))
        }
        if let cacheLength {
            takenCount += 1
            while takenCount - evictedCount > cacheLength {
                sent[evictedCount].evict()
                evictedCount += 1
            }
        } else {
            chargeCache(for: takenCount)
            takenCount += 1
        }
        stream.identifiersTaken &+= 1
        stream.lastTakenIdentifier = sent[takenCount - 1].identifier
    }

    /// Counts written entry `index` against the cache's memory. Its payload counts unless
    /// it is the very array of the entry written before it (still held there, so the
    /// comparison cannot be fooled by a freed and reused buffer).
    mutating func chargeCache(for index: Int) {
        let sharesPayload = index > 0 && sent[index].payload.withUnsafeBufferPointer { mine in
            sent[index - 1].payload.withUnsafeBufferPointer { $0.baseAddress == mine.baseAddress }
        }
        // Set or cleared each time: a resent entry may share now what it did not before.
        if sharesPayload { sent[index].flags.remove(.payloadCharged) } else { sent[index].flags.insert(.payloadCharged) }
        cacheMemory += charge(of: sent[index])
    }

    /// What a written entry counts against the cache's memory. The token's length comes
    /// from the frame's, held in the entry itself: the token array, a separate allocation
    /// per device, is seconds cold by the time the entry is settled.
    func charge(of entry: borrowing SessionEntry<Record>) -> Int {
        let payload = entry.payload.count
        let token = Int(entry.frameLength) - SessionEntry<Record>.frameOverhead(configuration.command) - payload
        return Self.cacheCharge(tokenCount: token, payloadCount: entry.flags.contains(.payloadCharged) ? payload : 0)
    }

    /// When the socket took the newest written entry.
    var lastWrittenAt: Timestamp? {
        takenCount == 0 ? nil : sent[takenCount - 1].writtenAt
    }

    /// Accepts every written entry whose grace window has passed on a healthy connection,
    /// as far as the peer has acknowledged its bytes — and none while an error response
    /// is arriving: it may name any of them. While the peer acknowledges nothing more with
    /// bytes waiting, only entries whose window had passed before it stopped; after a
    /// stall, none (see ``StreamPosition/stalled``).
    mutating func resolveByGraceWindow(_ now: Timestamp) {
        guard errorDecoder.bufferedByteCount == 0, let limit = graceAcceptanceLimit(now) else { return }
        while takenCount > 0, let due = frontGraceDeadline, due <= limit {
            if sent[0].isFlushMarker {
                // The gateway took (or ignored) the marker frame: nothing confirmed it.
                let automatic = sent[0].isAutomaticMarker
                _ = removeFirstWritten()
                awaitingMarker = false
                if !automatic { emit(.event(.flushed(confirmed: false))) }
            } else {
                // Handed over without a named copy, so the tag moves into the outcome
                // rather than being retained for it and released with the entry.
                accept(removeFirstWritten(), .graceWindow)
            }
        }
    }

    /// The latest grace deadline the grace window may honour now: `now` while the peer's
    /// acknowledgements keep up; when it stopped acknowledging with bytes waiting, the
    /// moment it stopped — a peer that no longer reads keeps acknowledging only until its
    /// kernel's buffer is full, so what it took shortly before may never be read; nil
    /// (nothing) after a stall.
    func graceAcceptanceLimit(_ now: Timestamp) -> Timestamp? {
        if stream.stalled { return nil }
        return stream.unacknowledgedSince.map { min($0, now) } ?? now
    }

    /// A fifth of the grace window, and at least 500 ms: how long a peer may acknowledge
    /// nothing, with bytes waiting, before it counts as stalled (a delayed ACK costs 40 ms, a
    /// lost segment a retransmission timeout of 200 ms and up; a gateway that stopped
    /// reading never acknowledges again).
    var stallDetectionNanos: Int64 { max(graceNanos / 5, 500_000_000) }

    /// The peer stalled: from now on only a confirmation marker's answer accepts what was
    /// written on this connection, so one is queued (Command 0 has none: its entries wait
    /// for the peer to read again, or for the write-stall timeout).
    mutating func noteStall(_ now: Timestamp) {
        guard configuration.command != .simple else { return }
        stream.stalled = true
        if !awaitingMarker { encode(.flushMarker(automatic: true)) }
        updateTimer(now)
    }

    /// After a stall, the marker was taken and acknowledged but not answered: its grace
    /// window from the acknowledgement, when the connection is given up as lost.
    var stalledMarkerDeadline: Timestamp? {
        guard stream.stalled, awaitingMarker, inFlightCount == 0, takenCount > 0, sent[takenCount - 1].isFlushMarker,
            stream.acknowledgedBytes >= stream.takenBytes, let acknowledged = stream.acknowledgedAt(stream.takenBytes)
        else { return nil }
        return max(acknowledged, sent[takenCount - 1].writtenAt).adding(nanoseconds: graceNanos)
    }

    /// When the oldest written entry's grace window ends: `graceWindow` after it was
    /// written — or, when acknowledgements are tracked, after the peer's TCP was reported
    /// to have acknowledged its bytes, if that was later; nil until it has (the gateway
    /// cannot have processed what it has not received).
    var frontGraceDeadline: Timestamp? {
        var start = sent[0].writtenAt
        if configuration.tracksAcknowledgements {
            let end = stream.frontOffset &+ Int64(sent[0].frameLength)
            guard end <= stream.acknowledgedBytes, let acknowledged = stream.acknowledgedAt(end) else { return nil }
            start = max(start, acknowledged)
        }
        return start.adding(nanoseconds: graceNanos)
    }

    /// Removes the oldest written entry, to settle or requeue it.
    mutating func removeFirstWritten() -> SessionEntry<Record> {
        precondition(takenCount > 0, "no written entry to remove")
        takenCount -= 1
        if evictedCount > 0 { evictedCount -= 1 }
        let entry = sent.removeFirst()
        if stream.answeredPrefix > 0 { stream.answeredPrefix -= 1 }
        stream.frontOffset &+= Int64(entry.frameLength)
        if configuration.tracksAcknowledgements { stream.forgetAcknowledgements(through: stream.frontOffset) }
        if cacheLength == nil { cacheMemory -= charge(of: entry) }
        return entry
    }

    /// The idle deadline: `idleTimeout` after the last write, once nothing written is left
    /// unsettled (each entry's own grace deadline comes first: closing cannot lose an error
    /// response, and no timer is re-armed in the past meanwhile).
    var idleDeadline: Timestamp? {
        guard let idle = idleNanos, pending.isEmpty, inFlightCount == 0, takenCount == 0 else { return nil }
        return lastActivity.adding(nanoseconds: idle)
    }

    /// How long a connection may go without progress while bytes wait to be written or
    /// acknowledged: `writeStallTimeout` or `idleTimeout` (node-apn's socket timeout counted
    /// a stalled write as inactivity), whichever is shorter — and, without either, still a
    /// bound while shutting down, so a peer that stopped reading cannot hold `shutdown`
    /// forever.
    var stallNanos: Int64? {
        let configured = [idleNanos, writeStallNanos].compactMap { $0 }.min()
        return configured ?? (shutdownRequested ? max(graceNanos, 10_000_000_000) : nil)
    }

    /// The stall deadline: `stallNanos` after the last write progress while frames wait to
    /// be written, or after acknowledgements stopped progressing while written bytes wait.
    var stallDeadline: Timestamp? {
        guard let stall = stallNanos else { return nil }
        let writes = inFlightCount > 0 ? lastActivity.adding(nanoseconds: stall) : nil
        return earliest(writes, stream.unacknowledgedSince?.adding(nanoseconds: stall))
    }

    /// A peer that stopped reading, or that answered no marker after a stall: give up on
    /// the connection as a failed attempt (backoff, retry limit), so what waits is sent on
    /// a new one, and a send, flush or shutdown cannot wait forever.
    mutating func closeIfStalled(_ now: Timestamp) {
        guard case .connected = phase else { return }
        let failure: APNError
        if let deadline = stallDeadline, deadline <= now {
            failure = APNError(
                code: .connectionFailed,
                message: "the gateway took or acknowledged no bytes for \(Duration.nanoseconds(stallNanos ?? 0)) with bytes waiting")
        } else if let deadline = stalledMarkerDeadline, deadline <= now {
            failure = APNError(
                code: .connectionFailed,
                message: "the gateway stopped reading, then left a confirmation marker unanswered for \(Duration.nanoseconds(graceNanos))")
        } else {
            return
        }
        emit(.event(.timeout))
        abandon(failure, now: now)
        phase = .closing(failure: failure)
    }

    /// Gives the connection up as lost: `socketError`, the silent-close policy for what was
    /// written, and a `close` by reset — what the socket still holds is resent on a new
    /// connection, and a gateway that holds back its reads must not take it after the resends.
    mutating func abandon(_ failure: APNError, now: Timestamp) {
        emit(.event(.socketError(failure)))
        connectionLost(failure, now: now)
        phase = .closing(failure: nil)
        emit(.close(reset: true))
    }

    /// A part of an error response arrived, then nothing for a whole grace window: the
    /// gateway cannot be understood. Lost, with nothing accepted by time (the response may
    /// have named any written notification).
    mutating func abandonIncompleteResponse(_ now: Timestamp) {
        let buffered = errorDecoder.bufferedByteCount
        guard case .connected(let link) = phase, buffered > 0, link.lastReceivedAt.adding(nanoseconds: graceNanos) <= now
        else { return }
        abandon(APNError(
            code: .malformedResponse,
            message: "the gateway sent \(buffered) of an error response's 6 bytes, then nothing for \(Duration.nanoseconds(graceNanos))"),
            now: now)
    }

    /// Idle past `idleTimeout`: close, once nothing written is left unsettled (acknowledged
    /// and past its grace window).
    mutating func closeIfIdle(_ now: Timestamp) {
        guard case .connected = phase, let deadline = idleDeadline, deadline <= now else { return }
        resolveByGraceWindow(now)
        guard takenCount == 0 else { return }
        emit(.event(.timeout))
        phase = .closing(failure: nil)
        emit(.close())
    }

    /// When shutting down, the moment to close: as soon as everything written is settled
    /// (each entry by its own grace deadline, or sooner; a peer that never acknowledges is
    /// given up as stalled).
    var shutdownDeadline: Timestamp? {
        guard shutdownRequested, pending.isEmpty, inFlightCount == 0, !awaitingMarker, takenCount == 0 else {
            return nil
        }
        return lastActivity
    }

    mutating func closeIfShutDown(_ now: Timestamp) {
        guard case .connected = phase, let deadline = shutdownDeadline, deadline <= now else { return }
        phase = .closing(failure: nil)
        emit(.close())
    }

    mutating func finishShutdown() {
        shutdownRequested = false
        emit(.event(.shutdownComplete))
    }

    /// Asks for a tick at the earliest deadline, when it changed.
    mutating func updateTimer(_ now: Timestamp) {
        var deadline: Timestamp?
        switch phase {
        case .connecting(let connectDeadline, aborted: false):
            deadline = connectDeadline
        case .backingOff(let until):
            deadline = until
        case .connected:
            deadline = earliest(earliest(earliest(graceDeadline, idleDeadline), shutdownDeadline), stallDeadline)
            deadline = earliest(deadline, stalledMarkerDeadline)
            deadline = earliest(deadline, pacingDeadline(now))
        default:
            deadline = nil
        }
        guard deadline != scheduledDeadline else { return }
        scheduledDeadline = deadline
        if let deadline { emit(.scheduleTimer(deadline)) }
    }

    /// When to look at the oldest written entry again: at the end of its grace window (none
    /// while it is unacknowledged, or while the peer acknowledges nothing more and its
    /// window ends after that began: the driver reports acknowledgements as they come; none
    /// after a stall); while an error response is arriving, when it would time out.
    var graceDeadline: Timestamp? {
        if errorDecoder.bufferedByteCount > 0, case .connected(let link) = phase {
            return link.lastReceivedAt.adding(nanoseconds: graceNanos)
        }
        guard takenCount > 0, !stream.stalled, let due = frontGraceDeadline else { return nil }
        if let since = stream.unacknowledgedSince, due > since { return nil }
        return due
    }

    func earliest(_ a: Timestamp?, _ b: Timestamp?) -> Timestamp? {
        guard let a else { return b }
        guard let b else { return a }
        return min(a, b)
    }

    /// 1 s, 2 s, 4 s … after the first, second, third failure, capped at `maxBackoff`.
    func backoff(afterFailures failures: Int) -> Duration {
        let shift = min(failures - 1, 30)
        let delay = configuration.initialBackoff * (1 << shift)
        return min(delay, configuration.maxBackoff)
    }

    /// Queues an action for the driver. Owned, so a tag moves into the queue rather than
    /// being retained for it (and released by the caller). `__owned` rather than
    /// `consuming`: Swift 6.3.1's move-only checker crashes on a `consuming` generic enum
    /// with `indirect` cases (an assertion in `getBoxTypeForEnumElement`); the calling
    /// convention is the same.
    mutating func emit(_ action: __owned SessionAction<Record>) {
        actions.append(action)
    }
}
