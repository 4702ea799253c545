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
            base += 1
        }
        // Everything before `front` is accepted, so its answer, if known, is the earliest
        // non-accepted one and can be reported now (rule 4).
        if let front = slots.first {
            switch front.state {
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
        for index in offset..<slots.count {
            let slot = slots[index]
            guard let notification = slot.notification else { continue }
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
        slots = FIFO()
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
