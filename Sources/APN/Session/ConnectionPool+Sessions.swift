// Routing to sessions, turning what they report into the pool's actions, and the checks
// across all slots made once per turn.
extension ConnectionPool {
    /// Queues an action for the driver; owned, `__owned` for the reason
    /// ``GatewaySession/emit(_:)`` gives.
    mutating func emit(_ action: __owned PoolAction<Record>) {
        actions.append(action)
    }

    // MARK: Routing

    /// The slot for the next notification (see the transition table).
    mutating func chooseSlot() -> Int {
        if slots.isEmpty { return addSlot() }
        if slots[fillIndex].session.acceptsImmediately { return fillIndex }
        for slot in slots.indices where slots[slot].session.acceptsImmediately {
            fillIndex = slot
            return slot
        }
        if slots.count < max(1, configuration.maxConnections) {
            fillIndex = addSlot()
            return fillIndex
        }
        var shortest = 0
        for slot in slots.indices.dropFirst()
        where slots[slot].session.pendingCount < slots[shortest].session.pendingCount {
            shortest = slot
        }
        return shortest
    }

    /// Adds a slot (its session idle); returns its index.
    @discardableResult
    mutating func addSlot() -> Int {
        let slot = slots.count
        slots.append(PoolSlot<Record>(configuration: configuration.session, transmittedWanted: transmittedWanted))
        return slot
    }

    // MARK: What sessions report

    /// Takes every action the slot's session asked for: the socket's become the driver's,
    /// the rest are the pool's to act on or pass along.
    mutating func absorb(_ slot: Int) {
        while let action = slots[slot].session.nextAction() {
            // Consumed, so the cases' payloads (the tag above all) are moved on rather than
            // retained, and released again with the action.
            switch consume action {
            case .connect:
                slots[slot].attempt += 1
                slots[slot].connecting = true
                emit(.connect(slot: slot, attempt: slots[slot].attempt))
            case .abortConnect:
                // The attempt is given up here (its answer, whenever it comes, is ignored),
                // so the session learns of its failure at once.
                slots[slot].attempt += 1
                slots[slot].connecting = false
                slots[slot].session.connectFailed(APNError.abortedConnect(), now: now)
            case .write:
                emit(.write(slot: slot))
            case .close(let reset):
                // Closing cannot fail: the session is told at once, so the driver only
                // closes the socket.
                emit(.close(slot: slot, reset: reset))
                slots[slot].session.closed(error: nil, now: now)
            case .scheduleTimer(let deadline):
                emit(.scheduleTimer(slot: slot, deadline))
            case .event(let event):
                handle(event, from: slot)
            case .errorCallback(let code, let tag):
                emit(.errorCallback(code, tag))
            case .outcome(let tag, let outcome):
                outstanding -= 1
                report.record(tag, outcome)
                emit(.outcome(tag, outcome))
            }
        }
        let awaits = slots[slot].session.awaitsAcknowledgement
        if awaits != slots[slot].watched {
            slots[slot].watched = awaits
            emit(.watchAcknowledgements(slot: slot, awaits))
        }
    }

    mutating func handle(_ event: SessionEvent<Record>, from slot: Int) {
        switch event {
        case .connected:
            openSockets += 1
            emit(.connected(openSockets: openSockets))
        case .disconnected:
            openSockets -= 1
            emit(.disconnected(openSockets: openSockets))
        case .completed:
            break  // per socket; the connection's own is checked each turn (`reportCompleted`)
        case .cacheFull:
            if !cacheFullReported {
                cacheFullReported = true
                emit(.event(event))
            }
        case .error(let error):
            emit(.event(event))
            terminate(error)
        case .flushed(let confirmed):
            flushAnswered(slot, confirmed: confirmed)
        case .shutdownComplete:
            slots[slot].shutDown = true
        case .timeout, .transmitted, .transmissionError, .cacheTooSmall, .graceWindowTooShort, .socketError,
             .connectAttemptFailed:
            emit(.event(event))
        }
    }

    /// One session gave up (513 or 514): so does the connection. The other sessions finish
    /// what they hold and close.
    mutating func terminate(_ error: APNError) {
        switch lifecycle {
        case .unstarted, .running:
            lifecycle = .terminated(error)
        case .shuttingDown:
            // Already finishing; the others are still told, as they would have been.
            break
        case .terminated, .closed, .finished:
            return
        }
        for slot in slots.indices where !slots[slot].session.isTerminated {
            slots[slot].session.shutdown(now: now)
            absorb(slot)
        }
    }

    mutating func flushAnswered(_ slot: Int, confirmed: Bool) {
        guard !slots[slot].flushes.isEmpty else { return }
        let id = slots[slot].flushes.removeFirst()
        guard var request = flushes[id] else { return }
        request.remaining -= 1
        request.confirmed = request.confirmed && confirmed
        if request.remaining > 0 {
            flushes[id] = request
            return
        }
        flushes[id] = nil
        var report = takeReport()
        report.confirmed = request.confirmed
        emit(.reply(request.reply, report))
    }

    // MARK: Each turn

    /// The checks across all slots, after a batch of inputs.
    package mutating func endOfTurn(now: Timestamp) {
        self.now = now
        wakeAcknowledgementWaiters()
        maintainMinimum()
        reportCompleted()
        answerSettledFlushes()
        finishShutdownIfDone()
    }

    /// Wakes acknowledgement barriers once no socket waits for one.
    mutating func wakeAcknowledgementWaiters() {
        guard !acknowledgementWaiters.isEmpty,
              !slots.contains(where: { $0.session.awaitsAcknowledgement }) else { return }
        for reply in acknowledgementWaiters { emit(.wake(reply)) }
        acknowledgementWaiters.removeAll()
    }

    /// Keeps `minConnections` sockets open once something was pushed.
    mutating func maintainMinimum() {
        guard case .running = lifecycle else { return }
        let minimum = min(configuration.minConnections, max(1, configuration.maxConnections))
        guard minimum > 0 else { return }
        while slots.count < minimum { addSlot() }
        for slot in 0..<minimum where slots[slot].session.isIdle {
            slots[slot].session.open(now: now)
            absorb(slot)
        }
    }

    /// `completed` once nothing pushed is left unwritten on any socket. Checked every turn
    /// rather than on a socket's own `completed`: a socket that completed before another
    /// socket's resends finish would otherwise leave the connection's event unsent.
    mutating func reportCompleted() {
        guard queuedSinceCompleted, !slots.contains(where: { $0.session.hasUnwrittenWork }) else { return }
        queuedSinceCompleted = false
        emit(.event(.completed))
    }

    /// Unconfirmed flushes answer once no notification is left without an outcome.
    mutating func answerSettledFlushes() {
        guard !settleReplies.isEmpty, outstanding == 0 else { return }
        let report = takeReport()
        for reply in settleReplies { emit(.reply(reply, report)) }
        settleReplies.removeAll()
    }

    mutating func finishShutdownIfDone() {
        guard case .shuttingDown(let released) = lifecycle, !slots.contains(where: { !$0.shutDown }) else { return }
        // Taken only for someone waiting: a cancelled shutdown's outcomes stay for the next.
        if !shutdownReplies.isEmpty {
            let report = takeReport()
            for reply in shutdownReplies { emit(.reply(reply, report)) }
        }
        for (_, request) in flushes.sorted(by: { $0.key < $1.key }) { emit(.reply(request.reply, PoolReport<Record>())) }
        for reply in settleReplies { emit(.reply(reply, PoolReport<Record>())) }
        shutdownReplies.removeAll()
        flushes.removeAll()
        settleReplies.removeAll()
        for reply in acknowledgementWaiters { emit(.wake(reply)) }
        acknowledgementWaiters.removeAll()
        emit(.endEvents)
        lifecycle = released ? .finished : .closed
        if released { emit(.stop) }
    }

    /// The outcomes since the last report, and the resends since.
    mutating func takeReport() -> PoolReport<Record> {
        var taken = report
        var resends = 0
        for slot in slots.indices { resends += slots[slot].session.resendCount }
        taken.resent = resends - resendsReported
        resendsReported = resends
        report = PoolReport<Record>()
        return taken
    }
}
