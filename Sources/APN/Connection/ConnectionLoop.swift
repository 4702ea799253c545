import Glibc
import APNTLS
import Dispatch

/// A connection's I/O thread: one `poll()` loop over the pool's sockets and the inbox's
/// wake pipe, driving one ``GatewaySession`` per socket and performing its actions.
///
/// ## Concurrency model
/// Everything here runs on the one thread that calls ``run()``: the loop is a noncopyable
/// value created on that thread and owned by it, so it cannot be shared at all. Other
/// threads reach the loop only through the ``Inbox`` (a mutex-guarded queue plus a wake
/// pipe) and receive reports through the ``CallbackDispatcher``'s serial callback queue.
/// Sessions, sockets and counters are therefore never shared.
///
/// Being a value rather than a class also keeps the hot path cheap: every change to the
/// sessions and counters goes through `inout self`, whose exclusivity the compiler proves,
/// instead of a runtime check per access of a class's stored property.
struct ConnectionLoop: ~Copyable {
    let options: Connection.Options
    let inbox: Inbox
    let connector: Connector
    let clock: ConnectionClock
    var dispatcher: CallbackDispatcher
    let sessionConfiguration: SessionConfiguration

    var slots = SlotTable()
    /// The time of the input being handled: taken once per turn for commands (and again
    /// every ``pushesPerClockRead`` notifications), and afresh after each socket read or write.
    var now = Timestamp.zero
    /// At most this many pushes are handled on one reading of the clock.
    static let pushesPerClockRead = 1024
    /// Pushes handled since `now` was last read, this turn.
    var handledSinceClockRead = 0
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
    /// `cacheFull` was reported: once per connection, whichever socket filled first.
    var cacheFullReported = false
    /// Callers of ``Connection/acknowledgementBarrier()`` waiting.
    var acknowledgementWaiters: [@Sendable () -> Void] = []
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

    mutating func run() {
        let observer = clock.manual?.observe { [inbox] in inbox.post(.clockAdvanced) }
        defer { if let observer { clock.manual?.removeObserver(observer) } }
        var commands: [LoopCommand] = []
        while !finished {
            inbox.take(swapping: &commands)
            // After the take: a manual clock advanced before a command was posted is seen.
            now = clock.now()
            handledSinceClockRead = 0
            // By index, so each command is borrowed from the array rather than copied out.
            for index in commands.indices { handle(commands[index]) }
            for index in slots.indices where slots[index].tls != nil { service(index) }
            fireTimers()
            reportAwaitedAcknowledgements()
            answerAcknowledgementWaiters()
            maintainMinimum()
            reportCompleted()
            answerSettledFlushes()
            finishShutdownIfDone()
            dispatcher.flush()
            if finished { break }
            if inbox.prepareToSleep() {
                // A timer or an acknowledgement can let a session encode more (a paced
                // window opened, cache room freed): write it before sleeping on the timers.
                waitForActivity(timeout: hasUnwrittenBytes ? 0 : pollTimeout())
                inbox.awake()
            } else if slots.contains(where: { $0.writeBlocked }) {
                // Commands keep coming, so the loop does not sleep; a blocked socket's
                // writability must still be learnt, or nothing more would be written.
                waitForActivity(timeout: 0)
            }
        }
        for index in slots.indices { slots[index].tls?.close() }
    }

    /// Polls the wake pipe and every socket until something is ready or `timeout` (ms; -1
    /// for none) passes.
    private mutating func waitForActivity(timeout: Int32) {
        var descriptors = [pollfd(fd: inbox.wake.descriptor, events: Int16(POLLIN), revents: 0)]
        var polled: [Int] = []
        for index in slots.indices {
            guard let tls = slots[index].tls else { continue }
            var events = Int16(POLLIN)
            if slots[index].writeBlocked { events |= Int16(POLLOUT) }
            descriptors.append(pollfd(fd: tls.fileDescriptor, events: events, revents: 0))
            polled.append(index)
        }
        let result = descriptors.withUnsafeMutableBufferPointer { buffer in
            poll(buffer.baseAddress, nfds_t(buffer.count), timeout)
        }
        guard result > 0 else { return }
        for (offset, index) in polled.enumerated() {
            let revents = descriptors[offset + 1].revents
            if revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 { slots[index].readReady = true }
            if revents & Int16(POLLOUT | POLLHUP | POLLERR) != 0 { slots[index].writeBlocked = false }
        }
    }

    /// Milliseconds until the earliest timer (rounded up), 0 when one is already due, or -1
    /// for none — and at most ``acknowledgementPollMilliseconds`` while a socket waits for
    /// the peer's acknowledgement. With a manual clock, time moves only by `advance`, which
    /// posts to the inbox: only an already due timer needs a timeout.
    private func pollTimeout() -> Int32 {
        let timers = timerTimeout()
        // Acknowledgements come in real time, whatever the clock: look again soon.
        guard slots.contains(where: { $0.session.awaitsAcknowledgement }) else { return timers }
        return timers < 0 ? Self.acknowledgementPollMilliseconds : min(timers, Self.acknowledgementPollMilliseconds)
    }

    /// A socket that could take the bytes its session encoded and has not been given them.
    private var hasUnwrittenBytes: Bool {
        slots.contains { $0.tls != nil && !$0.writeBlocked && !$0.session.outboundBytes.isEmpty }
    }

    /// How often a socket whose session waits for the peer's acknowledgement is asked.
    static let acknowledgementPollMilliseconds: Int32 = 10

    /// The poll timeout the timers alone ask for (see ``pollTimeout()``).
    private func timerTimeout() -> Int32 {
        var earliest: Timestamp?
        for index in slots.indices {
            if let timer = slots[index].timer, earliest.map({ timer < $0 }) ?? true { earliest = timer }
        }
        guard let earliest else { return -1 }
        let nanoseconds = earliest.nanoseconds &- clock.now().nanoseconds
        if nanoseconds <= 0 { return 0 }
        if clock.manual != nil { return -1 }
        return Int32(clamping: (nanoseconds + 999_999) / 1_000_000)
    }

    /// Answers ``Connection/acknowledgementBarrier()`` once no socket waits for one.
    private mutating func answerAcknowledgementWaiters() {
        guard !acknowledgementWaiters.isEmpty, !slots.contains(where: { $0.session.awaitsAcknowledgement }) else { return }
        for reply in acknowledgementWaiters { dispatcher.call(reply) }
        acknowledgementWaiters.removeAll()
    }

    /// Asks the sockets whose sessions wait for the peer's acknowledgement.
    private mutating func reportAwaitedAcknowledgements() {
        for index in slots.indices where slots[index].session.awaitsAcknowledgement {
            if let tls = slots[index].tls { reportAcknowledgements(index, tls) }
        }
    }

    private mutating func fireTimers() {
        now = clock.now()
        for index in slots.indices {
            guard let timer = slots[index].timer, timer <= now else { continue }
            slots[index].timer = nil
            if let tls = slots[index].tls { reportAcknowledgements(index, tls) }
            slots[index].session.tick(now: now)
            drain(index)
        }
    }

    // MARK: Commands

    private mutating func handle(_ command: LoopCommand) {
        switch command {
        case .push(let record):
            for index in 0..<UInt32(record.count) { take(record, index) }
        case .refuse(let record, let error):
            for index in 0..<UInt32(record.count) { refuse(record, index, error) }
        case .flush(let confirm, let reply):
            flush(confirm: confirm, reply: reply)
        case .shutdown(let reply):
            shutdown(reply: reply)
        case .connectResult(let index, let attempt, let result):
            connectFinished(index, attempt: attempt, result)
        case .release:
            released = true
            if closed {
                finished = true
            } else if !shuttingDown {
                shutdown(reply: { _ in })
            }
        case .listenersChanged:
            for index in slots.indices { slots[index].session.emitsTransmitted = dispatcher.wantsEvents }
        case .barrier(let reply):
            dispatcher.call(reply)
        case .acknowledgementBarrier(let reply):
            acknowledgementWaiters.append(reply)
        case .clockAdvanced:
            break
        }
    }

    /// Notification `index` of a push: refused once shutting down or terminated, else
    /// routed. (Per notification, not per command: a batch can terminate the connection
    /// midway.)
    private mutating func take(_ record: PushRecord, _ index: UInt32) {
        handledSinceClockRead += 1
        if handledSinceClockRead == Self.pushesPerClockRead {
            handledSinceClockRead = 0
            now = clock.now()
        }
        if shuttingDown {
            refuse(record, index, APNError.shutDown())
        } else if terminated != nil {
            refuse(record, index, APNError.connectionTerminated())
        } else {
            route(record, index)
        }
    }

    /// Hands a notification to a socket: the current one while it takes notifications at
    /// once, else any that does, else a new socket (up to `maxConnections`), else the one
    /// with the shortest queue.
    private mutating func route(_ record: PushRecord, _ index: UInt32) {
        started = true
        queuedSinceCompleted = true
        outstanding += 1
        let slot = chooseSlot()
        slots[slot].session.push(
            SessionTag(record, index: index), token: record.token(at: index), payload: record.payload,
            expiry: record.expiry, priority: record.priority, retryLimit: record.retryLimit, now: now)
        drain(slot)
    }

    /// The index of the slot for the next notification (see ``route(_:_:)``).
    private mutating func chooseSlot() -> Int {
        if slots.isEmpty { return addSlot() }
        if slots[fillIndex].session.acceptsImmediately { return fillIndex }
        for index in slots.indices where slots[index].session.acceptsImmediately {
            fillIndex = index
            return index
        }
        if slots.count < max(1, options.maxConnections) {
            fillIndex = addSlot()
            return fillIndex
        }
        var shortest = 0
        for index in slots.indices.dropFirst()
        where slots[index].session.pendingCount < slots[shortest].session.pendingCount {
            shortest = index
        }
        return shortest
    }

    /// Opens a new slot (its session idle); returns its index.
    @discardableResult
    private mutating func addSlot() -> Int {
        let index = slots.count
        var slot = GatewaySlot(configuration: sessionConfiguration)
        slot.session.emitsTransmitted = dispatcher.wantsEvents
        slots.append(slot)
        return index
    }

    /// A local refusal: errorCallback first, then the event (node-apn's order for local
    /// paths), then the outcome.
    private mutating func refuse(_ record: PushRecord, _ index: UInt32, _ error: APNError) {
        let status = error.status ?? .unknown
        dispatcher.errorCallback(.status(status), record, index: index)
        dispatcher.event(.transmissionError(status, record.notification, record.device(at: index)))
        report.record(.failed(error), notification: record.notification, device: record.device(at: index))
        dispatcher.outcome(record, index: index, .failed(error))
    }

    private mutating func flush(confirm: Bool, reply: @escaping @Sendable (DeliveryReport) -> Void) {
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
        now = clock.now()
        for index in slots.indices {
            slots[index].flushes.append(nextFlushID)
            slots[index].session.flush(now: now)
            drain(index)
        }
    }

    private mutating func shutdown(reply: @escaping @Sendable (DeliveryReport) -> Void) {
        guard !closed else {
            dispatcher.reply(reply, takeReport())
            return
        }
        shuttingDown = true
        shutdownReplies.append(reply)
        now = clock.now()
        for index in slots.indices {
            slots[index].shutDown = false
            slots[index].session.shutdown(now: now)
            drain(index)
        }
    }

    private mutating func connectFinished(_ index: Int, attempt: Int, _ result: ConnectResult) {
        guard slots[index].connecting, attempt == slots[index].attempt else {
            // Abandoned at the connect timeout: the session already counted it as failed.
            if case .connected(let handoff) = result { handoff.connection.close() }
            return
        }
        slots[index].connecting = false
        now = clock.now()
        switch result {
        case .connected(let handoff):
            slots[index].tls = handoff.connection
            slots[index].readReady = true
            slots[index].writeBlocked = false
            slots[index].acknowledgements.reset()
            slots[index].session.connected(now: now)
        case .failed(let error):
            slots[index].session.connectFailed(error, now: now)
        }
        drain(index)
    }

    // MARK: Sockets

    /// Writes and reads until the socket would block. Reads are tried every few writes
    /// whether or not `poll()` said so: while writes keep succeeding the loop never polls,
    /// and an error response left unread would be lost when the gateway closes.
    private mutating func service(_ index: Int) {
        var progress = true
        while progress, let tls = slots[index].tls {
            progress = false
            if !slots[index].writeBlocked, !slots[index].session.outboundBytes.isEmpty {
                progress = write(index, tls)
                slots[index].writesSinceRead += 1
            }
            // Every 8th write (128 KiB of records) is enough to find an error response
            // promptly; reading after each would cost a system call per TLS record.
            guard slots[index].tls != nil,
                  !progress || slots[index].readReady || slots[index].writesSinceRead >= Self.writesPerRead
            else { continue }
            slots[index].writesSinceRead = 0
            progress = read(index, tls) || progress
        }
    }

    /// How many writes may go by without trying a read.
    private static let writesPerRead = 8

    /// One write of what the session has encoded; whether anything was written.
    private mutating func write(_ index: Int, _ tls: TLSConnection) -> Bool {
        let step = slots[index].session.outboundBytes.withUnsafeReadableBytes { tls.write($0) }
        switch step {
        case .done(let count):
            now = clock.now()
            slots[index].acknowledgements.wrote(count, ciphertextTotal: tls.bytesSentToSocket)
            slots[index].session.bytesWritten(count, now: now)
            drain(index)
            if slots[index].acknowledgements.wantsRefresh { reportAcknowledgements(index, tls) }
            return true
        case .wantWrite, .wantRead:
            slots[index].writeBlocked = true
            return false
        case .closed(let clean):
            writeFailed(index, tls, APNError.socketEnded(clean: clean))
            return true
        case .failed(let error):
            writeFailed(index, tls, APNError.socketFailed(error))
            return true
        }
    }

    /// A write failed (typically EPIPE: the gateway closed after an error response). The
    /// error response may still wait in the receive buffer: read it first, so the failure
    /// is attributed rather than taken for a silent close (node-apn's "EPIPE fix").
    private mutating func writeFailed(_ index: Int, _ tls: TLSConnection, _ error: APNError?) {
        _ = read(index, tls)
        if slots[index].tls != nil { socketEnded(index, error: error) }
    }

    /// Reads what the gateway sent (an error response, or the end); whether anything
    /// happened.
    private mutating func read(_ index: Int, _ tls: TLSConnection) -> Bool {
        var happened = false
        while slots[index].tls != nil {
            let step = readBuffer.withUnsafeMutableBytes { tls.read(into: $0) }
            switch step {
            case .done(let count):
                happened = true
                now = clock.now()
                slots[index].session.bytesReceived(Array(readBuffer[..<count]), now: now)
                drain(index)
            case .wantRead, .wantWrite:
                slots[index].readReady = false
                return happened
            case .closed(let clean):
                socketEnded(index, error: APNError.socketEnded(clean: clean))
                return true
            case .failed(let error):
                socketEnded(index, error: APNError.socketFailed(error))
                return true
            }
        }
        return happened
    }

    /// Tells the session how much of what it wrote the peer's TCP has acknowledged (what
    /// the socket carried, less what its send queue still holds).
    private mutating func reportAcknowledgements(_ index: Int, _ tls: TLSConnection) {
        var plaintext = slots[index].acknowledgements.plaintextAcknowledged
        if let unacknowledged = tls.unacknowledgedByteCount() {
            let carried = tls.bytesSentToSocket
            let acknowledged = carried - min(carried, UInt64(unacknowledged))
            plaintext = slots[index].acknowledgements.acknowledge(ciphertext: acknowledged)
        }
        // Reported even when the socket could not be asked (no progress then), so a peer
        // that never acknowledges is still given up as stalled.
        slots[index].session.acknowledged(bytes: plaintext, now: now)
        drain(index)
    }

    /// The gateway ended the connection (or it broke).
    private mutating func socketEnded(_ index: Int, error: APNError?) {
        guard let tls = slots[index].tls else { return }
        // Before the socket goes: the session must know what the peer acknowledged. That
        // may settle the rest and close the socket itself (idle, or shutting down).
        now = clock.now()
        reportAcknowledgements(index, tls)
        guard slots[index].tls != nil else { return }
        tls.close()
        slots[index].tls = nil
        slots[index].writeBlocked = false
        slots[index].readReady = false
        now = clock.now()
        slots[index].session.closed(error: error, now: now)
        drain(index)
    }

    /// We end the connection: close_notify (best effort, never waited for), then close.
    private mutating func closeSocket(_ index: Int) {
        if let tls = slots[index].tls {
            _ = tls.shutdown()
            tls.close()
        }
        slots[index].tls = nil
        slots[index].writeBlocked = false
        slots[index].readReady = false
    }

    // MARK: Session actions

    /// Performs or reports every action the session of slot `index` asked for.
    mutating func drain(_ index: Int) {
        while let action = slots[index].session.nextAction() {
            // Consumed, so the cases' payloads (the tag above all) are moved out rather
            // than retained, and released again with the action.
            switch consume action {
            case .connect:
                slots[index].attempt += 1
                slots[index].connecting = true
                connector.start(slot: index, attempt: slots[index].attempt)
            case .abortConnect:
                slots[index].attempt += 1
                slots[index].connecting = false
                slots[index].session.connectFailed(APNError.abortedConnect(), now: now)
            case .write:
                break  // `service` writes once the inputs are handled
            case .close:
                closeSocket(index)
                slots[index].session.closed(error: nil, now: now)
            case .scheduleTimer(let deadline):
                slots[index].timer = deadline
            case .event(let event):
                handle(event, from: index)
            case .errorCallback(let code, let tag):
                dispatcher.errorCallback(
                    code, tag.map { unsafeDowncast($0.object, to: PushRecord.self) }, index: tag?.index ?? 0)
            case .outcome(let tag, let outcome):
                let index = tag.index
                // The tag's reference moves into `record` rather than being copied.
                let record = unsafeDowncast((consume tag).object, to: PushRecord.self)
                outstanding -= 1
                if case .accepted(let acceptance) = outcome {
                    // The common case, kept cheap: a count, no list entry.
                    report.accepted += 1
                    if acceptance.possiblyDuplicated { report.possiblyDuplicated += 1 }
                } else {
                    report.record(outcome, notification: record.notification, device: record.device(at: index))
                }
                dispatcher.outcome(record, index: index, outcome)
            }
        }
    }

    private mutating func handle(_ event: SessionEvent, from index: Int) {
        switch event {
        case .connected:
            dispatcher.event(.connected(openSockets: openSockets))
        case .disconnected:
            dispatcher.event(.disconnected(openSockets: openSockets))
        case .timeout:
            dispatcher.event(.timeout)
        case .transmitted(let tag):
            let record = unsafeDowncast(tag.object, to: PushRecord.self)
            if let device = record.device(at: tag.index) { dispatcher.event(.transmitted(record.notification, device)) }
        case .completed:
            break  // per socket; the connection's own is checked each turn (`reportCompleted`)
        case .transmissionError(let status, let tag):
            if let tag {
                let record = unsafeDowncast(tag.object, to: PushRecord.self)
                dispatcher.event(.transmissionError(status, record.notification, record.device(at: tag.index)))
            } else {
                dispatcher.event(.transmissionError(status, nil, nil))
            }
        case .cacheTooSmall(let shortfall):
            dispatcher.event(.cacheTooSmall(shortfall))
        case .graceWindowTooShort(let count):
            dispatcher.event(.graceWindowTooShort(count))
        case .cacheFull(let limit):
            if !cacheFullReported {
                cacheFullReported = true
                dispatcher.event(.cacheFull(limit: limit))
            }
        case .socketError(let error):
            dispatcher.event(.socketError(error))
        case .error(let error):
            dispatcher.event(.error(error))
            terminate(error)
        case .flushed(let confirmed):
            flushAnswered(index, confirmed: confirmed)
        case .shutdownComplete:
            slots[index].shutDown = true
        }
    }

    private var openSockets: Int {
        var open = 0
        for index in slots.indices where slots[index].session.isConnected { open += 1 }
        return open
    }

    /// One socket gave up (513 or 514): so does the connection. Later pushes fail with 515;
    /// the other sockets finish what they hold and close.
    private mutating func terminate(_ error: APNError) {
        guard terminated == nil else { return }
        terminated = error
        for index in slots.indices where !slots[index].session.isTerminated {
            slots[index].session.shutdown(now: now)
            drain(index)
        }
    }

    private mutating func flushAnswered(_ index: Int, confirmed: Bool) {
        guard !slots[index].flushes.isEmpty else { return }
        let id = slots[index].flushes.removeFirst()
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
    private mutating func maintainMinimum() {
        guard started, !shuttingDown, terminated == nil else { return }
        let minimum = min(options.minConnections, max(1, options.maxConnections))
        guard minimum > 0 else { return }
        while slots.count < minimum { addSlot() }
        for index in 0..<minimum where slots[index].session.isIdle {
            slots[index].session.open(now: now)
            drain(index)
        }
    }

    /// `completed` once nothing pushed is left unwritten on any socket. Checked every turn
    /// rather than on a socket's own `completed`: a socket that completed before another
    /// socket's resends finish would otherwise leave the connection's event unsent.
    private mutating func reportCompleted() {
        guard queuedSinceCompleted, !slots.contains(where: { $0.session.hasUnwrittenWork }) else { return }
        queuedSinceCompleted = false
        dispatcher.event(.completed)
    }

    /// Unconfirmed flushes answer once no notification is left without an outcome.
    private mutating func answerSettledFlushes() {
        guard !settleReplies.isEmpty, outstanding == 0 else { return }
        let report = takeReport()
        for reply in settleReplies { dispatcher.reply(reply, report) }
        settleReplies.removeAll()
    }

    private mutating func finishShutdownIfDone() {
        guard shuttingDown, !closed, !slots.contains(where: { !$0.shutDown }) else { return }
        let report = takeReport()
        for reply in shutdownReplies { dispatcher.reply(reply, report) }
        for (_, request) in flushes { dispatcher.reply(request.reply, DeliveryReport()) }
        for reply in settleReplies { dispatcher.reply(reply, DeliveryReport()) }
        shutdownReplies.removeAll()
        flushes.removeAll()
        settleReplies.removeAll()
        for reply in acknowledgementWaiters { dispatcher.call(reply) }
        acknowledgementWaiters.removeAll()
        dispatcher.finish()
        closed = true
        finished = released
    }

    /// Resends counted in reports so far, to report only the new ones.
    private var resendsReported = 0

    private mutating func takeReport() -> DeliveryReport {
        var taken = report
        var resends = 0
        for index in slots.indices { resends += slots[index].session.resendCount }
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
        command = options.format
        cacheLength = options.cacheLength.map { max(1, $0) }
        autoAdjustCache = options.autoAdjustCache
        maxCacheLength = max(cacheLength ?? 1, options.maxCacheLength)
        cacheMemoryLimit = max(1, options.cacheMemoryLimit / max(1, options.maxConnections))
        confirmationInterval = options.confirmationInterval.map { max(1, $0) }
        pacesAfterRejections = options.pacesAfterRejections
        // The I/O thread reports what the peer's TCP acknowledged before every timer and
        // close, so the grace window never accepts what is still in the send queue.
        tracksAcknowledgements = true
        connectionRetryLimit = max(0, options.connectionRetryLimit)
        initialBackoff = options.initialBackoff
        maxBackoff = options.maxBackoff
        connectTimeout = options.connectTimeout.turnedOffIfZero
        idleTimeout = options.connectionTimeout.turnedOffIfZero
        graceWindow = options.shutdownGraceWindow
        buffersNotifications = options.buffersNotifications
        silentClosePolicy = options.silentClosePolicy
        writeBatchBytes = options.fastMode ? 256 * 1024 : 16 * 1024
        settleWindow = options.settleWindow
    }
}

