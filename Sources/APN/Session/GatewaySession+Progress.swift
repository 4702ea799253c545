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
            fillOutbound()
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

    /// Encodes pending entries until the outbound buffer holds `writeBatchBytes`.
    mutating func fillOutbound() {
        guard !awaitingMarker, !pending.isEmpty else { return }
        while !awaitingMarker, outboundBytes.readableBytes < configuration.writeBatchBytes, !pending.isEmpty {
            encode(pending.removeFirst())
        }
    }

    /// Gives the entry the next identifier, appends its frame to the outbound buffer (asking
    /// the driver to write when the buffer was empty) and moves it in flight. Nothing is
    /// encoded after a flush marker until the gateway has answered it.
    mutating func encode(_ entry: consuming SessionEntry) {
        let wasEmpty = outboundBytes.isEmpty
        let identifier = takeIdentifier()
        writeFrame(of: entry, identifier: identifier)
        entry.identifier = identifier
        if entry.isFlushMarker { awaitingMarker = true }
        sent.append(entry)
        if wasEmpty { emit(.write) }
    }

    /// Appends the entry's frame. Separate, with the entry borrowed, so its token and payload
    /// are lent to the encoder as they are: read from the consumed (so mutable) entry in
    /// `encode`, each was retained and released around the call, per notification.
    mutating func writeFrame(of entry: borrowing SessionEntry, identifier: UInt32) {
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
    /// cache, evicting the oldest cached entry beyond `cacheLength`.
    mutating func markTaken(_ now: Timestamp) {
        sent[takenCount].writtenAt = now
        if emitsTransmitted, let tag = sent[takenCount].tag {
            emit(.event(.transmitted(tag)))
        }
        takenCount += 1
        while takenCount - evictedCount > cacheLength {
            sent[evictedCount].evict()
            evictedCount += 1
        }
    }

    /// When the socket took the newest written entry.
    var lastWrittenAt: Timestamp? {
        takenCount == 0 ? nil : sent[takenCount - 1].writtenAt
    }

    /// Accepts every written entry whose grace window has passed on a healthy connection.
    mutating func resolveByGraceWindow(_ now: Timestamp) {
        while takenCount > 0, sent[0].writtenAt.nanoseconds &+ graceNanos <= now.nanoseconds {
            if sent[0].isFlushMarker {
                // The gateway took (or ignored) the marker frame: nothing confirmed it.
                _ = removeFirstWritten()
                awaitingMarker = false
                emit(.event(.flushed(confirmed: false)))
            } else {
                // Handed over without a named copy, so the tag moves into the outcome
                // rather than being retained for it and released with the entry.
                accept(removeFirstWritten(), .graceWindow)
            }
        }
    }

    /// Removes the oldest written entry, to settle or requeue it.
    mutating func removeFirstWritten() -> SessionEntry {
        precondition(takenCount > 0, "no written entry to remove")
        takenCount -= 1
        if evictedCount > 0 { evictedCount -= 1 }
        return sent.removeFirst()
    }

    /// The idle deadline: `idleTimeout` after the last write, and not before every written
    /// entry is out of its grace window (so closing cannot lose an error response).
    var idleDeadline: Timestamp? {
        guard let idle = idleNanos, pending.isEmpty, inFlightCount == 0 else { return nil }
        let idleAt = lastActivity.adding(nanoseconds: idle)
        guard let lastWrite = lastWrittenAt else { return idleAt }
        return max(idleAt, lastWrite.adding(nanoseconds: graceNanos))
    }

    /// The stall deadline: `idleTimeout` after the last write progress while frames wait
    /// to be written (node-apn's socket timeout counted a stalled write as inactivity).
    var stallDeadline: Timestamp? {
        guard let idle = idleNanos, inFlightCount > 0 else { return nil }
        return lastActivity.adding(nanoseconds: idle)
    }

    /// A peer that stopped reading: give up on the connection as lost, so what waits is
    /// sent on a new one, and flush and shutdown cannot wait forever.
    mutating func closeIfStalled(_ now: Timestamp) {
        guard case .connected = phase, let deadline = stallDeadline, deadline <= now else { return }
        let failure = APNError(
            code: .connectionFailed,
            message: "the gateway took no bytes for \(Duration.nanoseconds(idleNanos ?? 0)) with frames waiting to be written")
        emit(.event(.timeout))
        emit(.event(.socketError(failure)))
        connectionLost(failure, now: now)
        phase = .closing
        emit(.close)
    }

    mutating func closeIfIdle(_ now: Timestamp) {
        guard case .connected = phase, let deadline = idleDeadline, deadline <= now else { return }
        resolveByGraceWindow(now)
        emit(.event(.timeout))
        phase = .closing
        emit(.close)
    }

    /// When shutting down, the moment to close: the grace window after the last write.
    var shutdownDeadline: Timestamp? {
        guard shutdownRequested, pending.isEmpty, inFlightCount == 0, !awaitingMarker else { return nil }
        return lastWrittenAt?.adding(nanoseconds: graceNanos) ?? lastActivity
    }

    mutating func closeIfShutDown(_ now: Timestamp) {
        guard case .connected = phase, let deadline = shutdownDeadline, deadline <= now else { return }
        resolveByGraceWindow(now)
        phase = .closing
        emit(.close)
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
            let grace = takenCount == 0 ? nil : sent[0].writtenAt.adding(nanoseconds: graceNanos)
            deadline = earliest(earliest(earliest(grace, idleDeadline), shutdownDeadline), stallDeadline)
        default:
            deadline = nil
        }
        guard deadline != scheduledDeadline else { return }
        scheduledDeadline = deadline
        if let deadline { emit(.scheduleTimer(deadline)) }
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

    /// Queues an action for the driver. Consuming, so a tag moves into the queue rather
    /// than being retained for it (and released by the caller).
    mutating func emit(_ action: consuming SessionAction) {
        actions.append(action)
    }
}
