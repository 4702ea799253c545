import Glibc
import APNTLS
import Dispatch

/// A connection's I/O thread: one `poll()` loop over the pool's sockets and the inbox's
/// eventfd, driving one ``GatewaySession`` per socket and performing its actions.
///
/// ## Concurrency model
/// Everything here runs on the one thread that calls ``run()``. Other threads reach the
/// loop only through the ``Inbox`` (a mutex-guarded queue plus an eventfd) and receive
/// reports through the ``CallbackDispatcher``'s serial callback queue. Sessions, sockets
/// and counters are therefore never shared.
final class ConnectionLoop: @unchecked Sendable {
    // @unchecked Sendable: the loop is handed once to the thread that runs it and is never
    // touched by another thread afterwards (see the type's documentation).
    let options: Connection.Options
    let inbox: Inbox
    let connector: Connector
    let clock: ConnectionClock
    var dispatcher: CallbackDispatcher
    let sessionConfiguration: SessionConfiguration

    var slots: [GatewaySlot] = []
    /// The slot new notifications go to while it accepts them at once.
    var fillIndex = 0
    /// Something was pushed: keep `minConnections` open from now on.
    var started = false
    var shuttingDown = false
    var shutdownReplies: [@Sendable (DeliveryReport) -> Void] = []
    var terminated: APNError?
    /// Notifications handed to a session that have no outcome yet.
    var outstanding = 0
    var queuedSinceCompleted = false
    var report = DeliveryReport()
    var flushes: [Int: FlushRequest] = [:]
    var nextFlushID = 0
    var settleReplies: [@Sendable (DeliveryReport) -> Void] = []
    /// Shutdown finished: every socket is closed; the loop only answers (515, reports).
    var closed = false
    /// The ``Connection`` was released: end the thread once closed.
    var released = false
    var finished = false
    private var readBuffer = [UInt8](repeating: 0, count: 16 * 1024)

    struct FlushRequest {
        var remaining: Int
        var confirmed = true
        let reply: @Sendable (DeliveryReport) -> Void
    }

    init(options: Connection.Options, inbox: Inbox, hub: EventHub, queue: DispatchQueue) {
        self.options = options
        self.inbox = inbox
        self.connector = Connector(options: options, inbox: inbox)
        self.clock = options.clock
        self.dispatcher = CallbackDispatcher(queue: queue, hub: hub, errorCallback: options.errorCallback)
        self.sessionConfiguration = SessionConfiguration(options)
    }

    // MARK: The loop

    func run() {
        let observer = clock.manual?.observe { [inbox] in inbox.post(.clockAdvanced) }
        defer { if let observer { clock.manual?.removeObserver(observer) } }
        var commands: [LoopCommand] = []
        while !finished {
            inbox.take(swapping: &commands)
            for command in commands { handle(command) }
            for slot in slots where slot.tls != nil { service(slot) }
            fireTimers()
            maintainMinimum()
            reportCompleted()
            answerSettledFlushes()
            finishShutdownIfDone()
            dispatcher.flush()
            if finished { break }
            if inbox.prepareToSleep() {
                waitForActivity()
                inbox.awake()
            }
        }
        for slot in slots { slot.tls?.close() }
    }

    /// Polls the eventfd and every socket until something is ready or the earliest timer.
    private func waitForActivity() {
        var descriptors = [pollfd(fd: inbox.wake.descriptor, events: Int16(POLLIN), revents: 0)]
        var polled: [GatewaySlot] = []
        for slot in slots {
            guard let tls = slot.tls else { continue }
            var events = Int16(POLLIN)
            if slot.writeBlocked { events |= Int16(POLLOUT) }
            descriptors.append(pollfd(fd: tls.fileDescriptor, events: events, revents: 0))
            polled.append(slot)
        }
        let result = descriptors.withUnsafeMutableBufferPointer { buffer in
            poll(buffer.baseAddress, nfds_t(buffer.count), pollTimeout())
        }
        guard result > 0 else { return }
        for (offset, slot) in polled.enumerated() {
            let revents = descriptors[offset + 1].revents
            if revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 { slot.readReady = true }
            if revents & Int16(POLLOUT | POLLHUP | POLLERR) != 0 { slot.writeBlocked = false }
        }
    }

    /// Milliseconds until the earliest timer (rounded up), or -1 for none. With a manual
    /// clock, time moves only by `advance`, which posts to the inbox: no timeout needed.
    private func pollTimeout() -> Int32 {
        guard clock.manual == nil else { return -1 }
        guard let earliest = slots.compactMap(\.timer).min() else { return -1 }
        let nanoseconds = earliest.nanoseconds &- clock.now().nanoseconds
        if nanoseconds <= 0 { return 0 }
        return Int32(clamping: (nanoseconds + 999_999) / 1_000_000)
    }

    private func fireTimers() {
        let now = clock.now()
        for slot in slots {
            guard let timer = slot.timer, timer <= now else { continue }
            slot.timer = nil
            slot.session.tick(now: now)
            drain(slot)
        }
    }

    // MARK: Commands

    private func handle(_ command: LoopCommand) {
        switch command {
        case .push(let record):
            if shuttingDown {
                refuse(record, APNError.shutDown())
            } else if terminated != nil {
                refuse(record, APNError.connectionTerminated())
            } else {
                route(record)
            }
        case .refuse(let record, let error):
            refuse(record, error)
        case .flush(let confirm, let reply):
            flush(confirm: confirm, reply: reply)
        case .shutdown(let reply):
            shutdown(reply: reply)
        case .connectResult(let index, let attempt, let result):
            connectFinished(slots[index], attempt: attempt, result)
        case .release:
            released = true
            if closed {
                finished = true
            } else if !shuttingDown {
                shutdown(reply: { _ in })
            }
        case .listenersChanged:
            for slot in slots { slot.session.emitsTransmitted = dispatcher.wantsEvents }
        case .barrier(let reply):
            dispatcher.call(reply)
        case .clockAdvanced:
            break
        }
    }

    /// Hands a notification to a socket: the current one while it takes notifications at
    /// once, else any that does, else a new socket (up to `maxConnections`), else the one
    /// with the shortest queue.
    private func route(_ record: PushRecord) {
        started = true
        queuedSinceCompleted = true
        outstanding += 1
        let slot = chooseSlot()
        slot.session.push(
            record, token: record.token, payload: record.payload, expiry: record.expiry, priority: record.priority,
            retryLimit: record.retryLimit, now: clock.now())
        drain(slot)
    }

    private func chooseSlot() -> GatewaySlot {
        if slots.isEmpty { return addSlot() }
        if slots[fillIndex].session.acceptsImmediately { return slots[fillIndex] }
        if let ready = slots.firstIndex(where: { $0.session.acceptsImmediately }) {
            fillIndex = ready
            return slots[ready]
        }
        if slots.count < max(1, options.maxConnections) {
            let slot = addSlot()
            fillIndex = slot.index
            return slot
        }
        return slots.min { $0.session.pendingCount < $1.session.pendingCount }!
    }

    @discardableResult
    private func addSlot() -> GatewaySlot {
        let slot = GatewaySlot(index: slots.count, configuration: sessionConfiguration)
        slot.session.emitsTransmitted = dispatcher.wantsEvents
        slots.append(slot)
        return slot
    }

    /// A local refusal: errorCallback first, then the event (node-apn's order for local
    /// paths), then the outcome.
    private func refuse(_ record: PushRecord, _ error: APNError) {
        let status = error.status ?? .unknown
        dispatcher.errorCallback(.status(status), record)
        dispatcher.event(.transmissionError(status, record.notification, record.device))
        report.record(.failed(error), notification: record.notification, device: record.device)
        dispatcher.outcome(record, .failed(error))
    }

    private func flush(confirm: Bool, reply: @escaping @Sendable (DeliveryReport) -> Void) {
        guard !closed else {
            dispatcher.reply(reply, takeReport())
            return
        }
        guard confirm else {
            settleReplies.append(reply)
            return
        }
        guard !slots.isEmpty else {
            var report = takeReport()
            report.confirmed = true
            dispatcher.reply(reply, report)
            return
        }
        nextFlushID += 1
        flushes[nextFlushID] = FlushRequest(remaining: slots.count, reply: reply)
        let now = clock.now()
        for slot in slots {
            slot.flushes.append(nextFlushID)
            slot.session.flush(now: now)
            drain(slot)
        }
    }

    private func shutdown(reply: @escaping @Sendable (DeliveryReport) -> Void) {
        guard !closed else {
            dispatcher.reply(reply, takeReport())
            return
        }
        shuttingDown = true
        shutdownReplies.append(reply)
        let now = clock.now()
        for slot in slots {
            slot.shutDown = false
            slot.session.shutdown(now: now)
            drain(slot)
        }
    }

    private func connectFinished(_ slot: GatewaySlot, attempt: Int, _ result: ConnectResult) {
        guard slot.connecting, attempt == slot.attempt else {
            // Abandoned at the connect timeout: the session already counted it as failed.
            if case .connected(let handoff) = result { handoff.connection.close() }
            return
        }
        slot.connecting = false
        let now = clock.now()
        switch result {
        case .connected(let handoff):
            slot.tls = handoff.connection
            slot.readReady = true
            slot.writeBlocked = false
            slot.session.connected(now: now)
        case .failed(let error):
            slot.session.connectFailed(error, now: now)
        }
        drain(slot)
    }

    // MARK: Sockets

    /// Writes and reads until the socket would block. Reads are tried after every write
    /// whether or not `poll()` said so: while writes keep succeeding the loop never polls,
    /// and an error response left unread would be lost when the gateway closes.
    private func service(_ slot: GatewaySlot) {
        var progress = true
        while progress, let tls = slot.tls {
            progress = false
            if !slot.writeBlocked, !slot.session.outboundBytes.isEmpty { progress = write(slot, tls) }
            if slot.tls != nil { progress = read(slot, tls) || progress }
        }
    }

    /// One write of what the session has encoded; whether anything was written.
    private func write(_ slot: GatewaySlot, _ tls: TLSConnection) -> Bool {
        let step = slot.session.outboundBytes.withUnsafeReadableBytes { tls.write($0) }
        switch step {
        case .done(let count):
            slot.session.bytesWritten(count, now: clock.now())
            drain(slot)
            return true
        case .wantWrite, .wantRead:
            slot.writeBlocked = true
            return false
        case .closed(let clean):
            writeFailed(slot, tls, APNError.socketEnded(clean: clean))
            return true
        case .failed(let error):
            writeFailed(slot, tls, APNError.socketFailed("\(error)"))
            return true
        }
    }

    /// A write failed (typically EPIPE: the gateway closed after an error response). The
    /// error response may still wait in the receive buffer: read it first, so the failure
    /// is attributed rather than taken for a silent close (node-apn's "EPIPE fix").
    private func writeFailed(_ slot: GatewaySlot, _ tls: TLSConnection, _ error: APNError?) {
        _ = read(slot, tls)
        if slot.tls != nil { socketEnded(slot, error: error) }
    }

    /// Reads what the gateway sent (an error response, or the end); whether anything
    /// happened.
    private func read(_ slot: GatewaySlot, _ tls: TLSConnection) -> Bool {
        var happened = false
        while slot.tls != nil {
            let step = readBuffer.withUnsafeMutableBytes { tls.read(into: $0) }
            switch step {
            case .done(let count):
                happened = true
                slot.session.bytesReceived(Array(readBuffer[..<count]), now: clock.now())
                drain(slot)
            case .wantRead, .wantWrite:
                slot.readReady = false
                return happened
            case .closed(let clean):
                socketEnded(slot, error: APNError.socketEnded(clean: clean))
                return true
            case .failed(let error):
                socketEnded(slot, error: APNError.socketFailed("\(error)"))
                return true
            }
        }
        return happened
    }

    /// The gateway ended the connection (or it broke).
    private func socketEnded(_ slot: GatewaySlot, error: APNError?) {
        guard let tls = slot.tls else { return }
        tls.close()
        slot.tls = nil
        slot.writeBlocked = false
        slot.readReady = false
        slot.session.closed(error: error, now: clock.now())
        drain(slot)
    }

    /// We end the connection: close_notify (best effort, never waited for), then close.
    private func closeSocket(_ slot: GatewaySlot) {
        if let tls = slot.tls {
            _ = tls.shutdown()
            tls.close()
        }
        slot.tls = nil
        slot.writeBlocked = false
        slot.readReady = false
    }

    // MARK: Session actions

    /// Performs or reports every action the session asked for.
    func drain(_ slot: GatewaySlot) {
        while let action = slot.session.nextAction() {
            switch action {
            case .connect:
                slot.attempt += 1
                slot.connecting = true
                connector.start(slot: slot.index, attempt: slot.attempt)
            case .abortConnect:
                slot.attempt += 1
                slot.connecting = false
                slot.session.connectFailed(APNError.abortedConnect(), now: clock.now())
            case .write:
                break  // `service` writes once the inputs are handled
            case .close:
                closeSocket(slot)
                slot.session.closed(error: nil, now: clock.now())
            case .scheduleTimer(let deadline):
                slot.timer = deadline
            case .event(let event):
                handle(event, from: slot)
            case .errorCallback(let code, let tag):
                dispatcher.errorCallback(code, tag.map { unsafeDowncast($0, to: PushRecord.self) })
            case .outcome(let tag, let outcome):
                let record = unsafeDowncast(tag, to: PushRecord.self)
                outstanding -= 1
                if case .accepted(let acceptance) = outcome {
                    // The common case, kept cheap: a count, no list entry.
                    report.accepted += 1
                    if acceptance.possiblyDuplicated { report.possiblyDuplicated += 1 }
                } else {
                    report.record(outcome, notification: record.notification, device: record.device)
                }
                dispatcher.outcome(record, outcome)
            }
        }
    }

    private func handle(_ event: SessionEvent, from slot: GatewaySlot) {
        switch event {
        case .connected:
            dispatcher.event(.connected(openSockets: openSockets))
        case .disconnected:
            dispatcher.event(.disconnected(openSockets: openSockets))
        case .timeout:
            dispatcher.event(.timeout)
        case .transmitted(let tag):
            let record = unsafeDowncast(tag, to: PushRecord.self)
            if let device = record.device { dispatcher.event(.transmitted(record.notification, device)) }
        case .completed:
            break  // per socket; the connection's own is checked each turn (`reportCompleted`)
        case .transmissionError(let status, let tag):
            let record = tag.map { unsafeDowncast($0, to: PushRecord.self) }
            dispatcher.event(.transmissionError(status, record?.notification, record?.device))
        case .cacheTooSmall(let shortfall):
            dispatcher.event(.cacheTooSmall(shortfall))
        case .socketError(let error):
            dispatcher.event(.socketError(error))
        case .error(let error):
            dispatcher.event(.error(error))
            terminate(error)
        case .flushed(let confirmed):
            flushAnswered(slot, confirmed: confirmed)
        case .shutdownComplete:
            slot.shutDown = true
        }
    }

    private var openSockets: Int {
        slots.count { $0.session.isConnected }
    }

    /// One socket gave up (513 or 514): so does the connection. Later pushes fail with 515;
    /// the other sockets finish what they hold and close.
    private func terminate(_ error: APNError) {
        guard terminated == nil else { return }
        terminated = error
        let now = clock.now()
        for slot in slots where !slot.session.isTerminated {
            slot.session.shutdown(now: now)
            drain(slot)
        }
    }

    private func flushAnswered(_ slot: GatewaySlot, confirmed: Bool) {
        guard !slot.flushes.isEmpty else { return }
        let id = slot.flushes.removeFirst()
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
        dispatcher.reply(request.reply, report)
    }

    // MARK: Each turn

    /// Keeps `minConnections` sockets open once something was pushed.
    private func maintainMinimum() {
        guard started, !shuttingDown, terminated == nil else { return }
        let minimum = min(options.minConnections, max(1, options.maxConnections))
        guard minimum > 0 else { return }
        while slots.count < minimum { addSlot() }
        let now = clock.now()
        for slot in slots[..<minimum] where slot.session.isIdle {
            slot.session.open(now: now)
            drain(slot)
        }
    }

    /// `completed` once nothing pushed is left unwritten on any socket. Checked every turn
    /// rather than on a socket's own `completed`: a socket that completed before another
    /// socket's resends finish would otherwise leave the connection's event unsent.
    private func reportCompleted() {
        guard queuedSinceCompleted, !slots.contains(where: { $0.session.hasUnwrittenWork }) else { return }
        queuedSinceCompleted = false
        dispatcher.event(.completed)
    }

    /// Unconfirmed flushes answer once no notification is left without an outcome.
    private func answerSettledFlushes() {
        guard !settleReplies.isEmpty, outstanding == 0 else { return }
        let report = takeReport()
        for reply in settleReplies { dispatcher.reply(reply, report) }
        settleReplies.removeAll()
    }

    private func finishShutdownIfDone() {
        guard shuttingDown, !closed, !slots.contains(where: { !$0.shutDown }) else { return }
        let report = takeReport()
        for reply in shutdownReplies { dispatcher.reply(reply, report) }
        for (_, request) in flushes { dispatcher.reply(request.reply, DeliveryReport()) }
        for reply in settleReplies { dispatcher.reply(reply, DeliveryReport()) }
        shutdownReplies.removeAll()
        flushes.removeAll()
        settleReplies.removeAll()
        dispatcher.finish()
        closed = true
        finished = released
    }

    /// Resends counted in reports so far, to report only the new ones.
    private var resendsReported = 0

    private func takeReport() -> DeliveryReport {
        var taken = report
        let resends = slots.reduce(0) { $0 + $1.session.resendCount }
        taken.resent = resends - resendsReported
        resendsReported = resends
        report = DeliveryReport()
        return taken
    }
}

extension SessionConfiguration {
    /// The session settings for one socket of a connection with these options.
    init(_ options: Connection.Options) {
        self.init()
        command = options.format.command
        cacheLength = max(1, options.cacheLength)
        autoAdjustCache = options.autoAdjustCache
        maxCacheLength = max(cacheLength, options.maxCacheLength)
        connectionRetryLimit = max(0, options.connectionRetryLimit)
        initialBackoff = options.initialBackoff
        maxBackoff = options.maxBackoff
        connectTimeout = options.connectTimeout
        idleTimeout = options.connectionTimeout
        graceWindow = options.shutdownGraceWindow
        buffersNotifications = options.buffersNotifications
        silentClosePolicy = options.silentClosePolicy
        writeBatchBytes = options.fastMode ? 256 * 1024 : 16 * 1024
        settleWindow = options.settleWindow
    }
}
