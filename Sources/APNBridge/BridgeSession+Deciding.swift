import APNWire

/// The decision after each input (rules 4, 5, 7 and 8 of ``BridgeSession``), in one place.
extension BridgeSession {
    /// How the connection ends for the client.
    enum Report {
        /// An error response for the refused notification (none for command 0), then close.
        case refusal(StatusCode, identifier: UInt32, command: Command)
        /// Status 10 naming the last notification of the accepted prefix, then close.
        case shutdown
    }

    /// Grows the accepted prefix, then ends the connection if the earliest unsettled
    /// notification decides it, or the shutdown may end it; otherwise updates the window.
    mutating func decide() {
        guard phase == .running else { return }
        while let front = slots.first, case .answered(let answer) = front.state, answer.isAcceptance {
            lastAcceptedIdentifier = front.identifier
            slots.removeFirst()
            // Moved out of the queue, not copied.
            if let notification = notifications.removeFirst(), let recorded = answer.recorded {
                if acceptedTail.count == acceptedTailLimit { acceptedTail.removeFirst() }
                acceptedTail.append(Accepted(ordinal: base, notification: notification, answer: recorded))
            }
            base += 1
        }
        // Everything before `front` is accepted, so its answer, if known, is the earliest
        // non-accepted one and can be reported now (rule 4).
        if let front = slots.first {
            switch front.state {
            case .answered(.refused(let status)) where front.command.carriesIdentifier && reading != .stopped:
                // The client resends what follows the refused one, not the refused one; what
                // it wrote until it reads the response is still collected (rule 9).
                startCollecting(status, identifier: front.identifier)
                return
            case .answered(.refused(let status)), .refusedLocally(let status):
                // The client resends what follows the refused one, not the refused one.
                end(rememberingFrom: 1, report: .refusal(status, identifier: front.identifier, command: front.command))
                return
            case .answered:
                // A bridge failure: it was not delivered, so the client resends it too.
                end(rememberingFrom: 0, report: .shutdown)
                return
            case .awaiting:
                break
            }
        }
        if shutdownRequested, slots.isEmpty || graceOver {
            end(rememberingFrom: 0, report: .shutdown)
            return
        }
        updateWindow()
    }

    /// Hands `slots[offset...]` to the record (rule 7), tells the client `report`, and
    /// goes on draining the answers still awaited.
    mutating func end(rememberingFrom offset: Int, report: Report?) {
        remember(from: offset)
        reading = .stopped
        switch report {
        case .refusal(let status, let identifier, let command)?:
            if command.carriesIdentifier { emit(.writeErrorResponse(status, identifier: identifier)) }
            emit(.close)
        case .shutdown?:
            emit(.writeErrorResponse(.shutdown, identifier: lastAcceptedIdentifier))
            emit(.close)
        case nil:
            break
        }
        phase = .draining
        finishIfDone()
    }

    /// Rule 9: the earliest refusal is reported now, its connection left open. What
    /// follows it is handed to the record, and the reading goes on (past the window) to
    /// collect what the client wrote before it read the response.
    mutating func startCollecting(_ status: StatusCode, identifier: UInt32) {
        refusalDistance = slots.count - 1
        remember(from: 1)
        emit(.writeErrorResponse(status, identifier: identifier))
        phase = .collecting
        if reading == .paused {
            reading = .open
            emit(.resumeReading)
        }
    }

    /// A notification read while collecting: forwarded (or the record's answer taken) and
    /// remembered at once, since the client resends it when it reconnects. Ends the
    /// collection at its limit.
    mutating func collect(
        _ notification: BridgedNotification, record: inout ResendRecord, now: Duration, knownRefusal: StatusCode?
    ) -> Int {
        let ordinal = nextOrdinal
        base += 1
        collected += 1
        let arrival = Arrival(connection: connection, ordinal: ordinal)
        let taken = knownRefusal.map { ResendRecord.Answer.refused($0) }
            ?? record.take(notification.resendKey, for: arrival, now: now)
        if taken == nil { emit(.forward(ordinal: ordinal, notification)) }
        let answer = taken ?? .pending
        emit(.remember(arrival, notification.resendKey, answer))
        // A pending entry taken is answered by relay, as a forwarded one is by the upstream.
        if answer == .pending { rememberedPending[ordinal] = notification.token }
        if collected >= Self.collectionLimit { endCollecting() }
        return ordinal
    }

    /// The collection is over (the client closed or went quiet, the decoder stopped, the
    /// limit, a shutdown): reports the refusal distance and, unless the client closed,
    /// closes; then drains the answers still awaited.
    mutating func endCollecting(closing: Bool = true) {
        guard phase == .collecting else { return }
        emit(.refusalDistance(refusalDistance + collected))
        if closing {
            stopReading()
            emit(.close)
        } else {
            reading = .stopped
        }
        phase = .draining
        finishIfDone()
    }

    /// Whether `answer`, for a notification of `command`, stops the reading: a bridge
    /// failure does (status 10 follows), and a refusal only for command 0, whose client
    /// is closed without a word; after any other refusal the reading goes on (rule 9).
    static func stopsReading(_ answer: BridgeAnswer, _ command: Command) -> Bool {
        switch answer {
        case .accepted, .unregistered, .maybeDelivered: false
        case .refused: !command.carriesIdentifier
        case .bridgeFailure: true
        }
    }

    /// Hands `slots[offset...]` to the record (rule 7), pending ones awaited for their
    /// answer, and drops every slot, keeping the ordinals counting on.
    mutating func remember(from offset: Int) {
        for index in offset..<slots.count {
            let slot = slots[index]
            guard let notification = notifications[index] else { continue }
            let arrival = Arrival(connection: connection, ordinal: base + index)
            switch slot.state {
            case .awaiting:
                emit(.remember(arrival, notification.resendKey, .pending))
                rememberedPending[arrival.ordinal] = notification.token
            case .answered(let answer):
                if let recorded = answer.recorded { emit(.remember(arrival, notification.resendKey, recorded)) }
            case .refusedLocally:
                continue
            }
        }
        base += slots.count
        slots = FIFO()
        notifications = FIFO()
    }

    /// Emits `finished` once draining has nothing left to await.
    mutating func finishIfDone() {
        guard phase == .draining, rememberedPending.isEmpty else { return }
        phase = .finished
        emit(.finished)
    }

    /// Stops reading for good (once).
    mutating func stopReading() {
        guard reading != .stopped else { return }
        reading = .stopped
        emit(.stopReading)
    }

    /// Pauses at the window, resumes below it (rule 8).
    mutating func updateWindow() {
        let window = readsThroughShutdown ? shutdownWindow : window
        switch reading {
        case .open where slots.count >= window:
            reading = .paused
            emit(.pauseReading)
        case .paused where slots.count < window:
            reading = .open
            emit(.resumeReading)
        default:
            break
        }
    }

    /// Queues `action` for ``nextAction()``.
    mutating func emit(_ action: BridgeAction) {
        actions.append(action)
    }
}
