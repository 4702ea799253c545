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
            if queuedSinceCompleted, pending.isEmpty, inFlight.isEmpty {
                queuedSinceCompleted = false
                emit(.event(.completed))
            }
            closeIfShutDown(now)
        case .terminated:
            if shutdownRequested { finishShutdown() }
        case .connecting, .closing, .backingOff:
            break
        }
        updateTimer(now)
    }

    mutating func startConnect(_ now: Timestamp) {
        phase = .connecting(deadline: configuration.connectTimeout.map { now + $0 }, aborted: false)
        emit(.connect)
    }

    /// Encodes pending entries until the outbound buffer holds `writeBatchBytes`. Nothing is
    /// encoded after a flush marker until the gateway has answered it.
    mutating func fillOutbound() {
        guard !awaitingMarker, !pending.isEmpty else { return }
        let wasEmpty = outboundBytes.isEmpty
        let command = configuration.command
        while outboundBytes.readableBytes < configuration.writeBatchBytes, var entry = pending.popFirst() {
            entry.identifier = takeIdentifier()
            outboundBytes.writeNotification(
                command, identifier: entry.identifier, expiry: entry.expiry, priority: entry.priority,
                token: entry.token, payload: entry.payload)
            let isMarker = entry.isFlushMarker
            inFlight.append(entry)
            if isMarker {
                awaitingMarker = true
                break
            }
        }
        if wasEmpty, !outboundBytes.isEmpty { emit(.write) }
    }

    mutating func takeIdentifier() -> UInt32 {
        let identifier = nextIdentifier
        nextIdentifier = identifier == .max ? 1 : identifier + 1
        return identifier
    }

    /// A frame was taken whole by the socket: it joins the resend cache, evicting the
    /// oldest cached entry beyond `cacheLength`.
    mutating func addWritten(_ entry: SessionEntry<Tag>) {
        if configuration.emitsTransmitted, let tag = entry.tag {
            emit(.event(.transmitted(tag)))
        }
        written.append(entry)
        while written.count - evictedCount > cacheLength {
            written[evictedCount].payload = []
            written[evictedCount].flags.insert(.evicted)
            evictedCount += 1
        }
    }

    /// Accepts every written entry whose grace window has passed on a healthy connection.
    mutating func resolveByGraceWindow(_ now: Timestamp) {
        let grace = configuration.graceWindow
        while let first = written.first, first.writtenAt + grace <= now {
            let entry = removeFirstWritten()
            if entry.isFlushMarker {
                // The gateway took (or ignored) the marker frame: nothing confirmed it.
                awaitingMarker = false
                emit(.event(.flushed(confirmed: false)))
            } else if let tag = entry.tag {
                emit(.outcome(tag, .accepted(Acceptance(
                    evidence: .graceWindow, possiblyDuplicated: entry.flags.contains(.possiblyDuplicated)))))
            }
        }
    }

    mutating func removeFirstWritten() -> SessionEntry<Tag> {
        if evictedCount > 0 { evictedCount -= 1 }
        return written.removeFirst()
    }

    /// The idle deadline: `idleTimeout` after the last write, and not before every written
    /// entry is out of its grace window (so closing cannot lose an error response).
    var idleDeadline: Timestamp? {
        guard let idle = configuration.idleTimeout, pending.isEmpty, inFlight.isEmpty else { return nil }
        let idleAt = lastActivity + idle
        guard let last = written.last else { return idleAt }
        return max(idleAt, last.writtenAt + configuration.graceWindow)
    }

    mutating func closeIfIdle(_ now: Timestamp) {
        guard case .connected = phase, let deadline = idleDeadline, deadline <= now else { return }
        resolveByGraceWindow(now)
        emit(.event(.timeout))
        phase = .closing(.idle)
        emit(.close)
    }

    /// When shutting down, the moment to close: the grace window after the last write.
    var shutdownDeadline: Timestamp? {
        guard shutdownRequested, pending.isEmpty, inFlight.isEmpty, !awaitingMarker else { return nil }
        return written.last.map { $0.writtenAt + configuration.graceWindow } ?? lastActivity
    }

    mutating func closeIfShutDown(_ now: Timestamp) {
        guard case .connected = phase, let deadline = shutdownDeadline, deadline <= now else { return }
        resolveByGraceWindow(now)
        phase = .closing(.shutdown)
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
            let grace = written.first.map { $0.writtenAt + configuration.graceWindow }
            deadline = earliest(earliest(grace, idleDeadline), shutdownDeadline)
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

    mutating func emit(_ action: SessionAction<Tag>) {
        actions.append(action)
    }
}
