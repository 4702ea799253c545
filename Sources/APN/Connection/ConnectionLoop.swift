import APNSupport
import Glibc
import APNTLS
import Dispatch

/// A connection's I/O thread: a thin driver around the pure ``ConnectionPool``. One
/// `poll()` loop over the pool's sockets and the inbox's wake pipe feeds the pool what
/// callers asked and what the sockets did, with the time, and performs the actions the
/// pool drains: open, write, close, time, report. It decides nothing itself.
///
/// The turn, the inbox, the clock's observer and the `poll()` are the ``PollDriver``'s,
/// shared with ``ProviderLoop``; this loop gives it the hooks of a turn
/// (`ConnectionLoop+Turn.swift`). The pool's actions are performed at the turn's named
/// points only, never in the middle of a read or a write (`ConnectionLoop+Sockets.swift`):
/// a socket the pool has let go is neither read nor written again because the driver asks
/// the pool (``ConnectionPool/isConnected(slot:)``) before each read and write.
///
/// ## Concurrency model
/// Everything here runs on the one thread that calls ``run()``: the loop is a noncopyable
/// value created on that thread and owned by it, so it cannot be shared at all. Other
/// threads reach the loop only through the ``Inbox`` (a mutex-guarded queue plus a wake
/// pipe) and receive reports through the ``CallbackDispatcher``'s serial callback queue.
/// The pool, its sessions, the sockets and the counters are therefore never shared.
///
/// Being a value rather than a class also keeps the hot path cheap: every change to the
/// pool and the sockets goes through `inout self`, whose exclusivity the compiler proves,
/// instead of a runtime check per access of a class's stored property.
struct ConnectionLoop: ~Copyable {
    let inbox: Inbox
    let connector: ClientConnector
    let clock: ConnectionClock
    var dispatcher: CallbackDispatcher
    var pool: ConnectionPool<PushRecord>
    /// The sockets, by the pool's slot index (grown as the pool names new slots).
    var sockets = SlotTable<SocketSlot>()
    /// The time of the input being handled: taken once per turn for commands (and again
    /// every ``pushesPerClockRead`` notifications), and afresh after each socket read or write.
    var now = Timestamp.zero
    /// At most this many pushes are handled on one reading of the clock.
    static let pushesPerClockRead = 1024
    /// Pushes handled since `now` was last read, this turn.
    var handledSinceClockRead = 0
    /// The pool said `stop`: end the thread after this turn.
    var stopped = false
    /// Flushes and shutdowns waiting for the pool's `reply`, by the caller's id.
    var reportReplies: [ReplyID: ReportReply] = [:]
    /// Acknowledgement barriers waiting for the pool's `wake`.
    var wakeReplies: [ReplyID: @Sendable () -> Void] = [:]
    /// Reports made after their callers stopped waiting: added to the next one.
    var carriedOver = DeliveryReport()
    var readBuffer = [UInt8](repeating: 0, count: 16 * 1024)

    init(options: Connection.Options, inbox: Inbox, hub: EventHub, queue: DispatchQueue) {
        self.inbox = inbox
        self.connector = ClientConnector(
            ClientConnector.Settings(options), access: options.access, log: options.log, clock: options.clock,
            threads: options.threadStarter)
        self.clock = options.clock
        self.dispatcher = CallbackDispatcher(queue: queue, hub: hub, errorCallback: options.errorCallback, log: options.log)
        self.pool = ConnectionPool(configuration: PoolConfiguration(options))
    }

    // MARK: The loop

    /// Runs the loop's turns on the calling thread (see ``PollDriven`` for the order of a
    /// turn) until the pool says `stop`, then closes what is left.
    mutating func run() {
        var driver = PollDriver(inbox: inbox, clock: clock, clockAdvanced: LoopCommand.clockAdvanced)
        driver.run(&self)
        for slot in sockets.indices { sockets[slot].tls?.close() }
        connector.stop()
    }

    /// Milliseconds until the earliest timer (rounded up), 0 when one is already due, or -1
    /// for none — and at most ``acknowledgementPollMilliseconds`` while a socket is watched
    /// for the peer's acknowledgement.
    func pollTimeout() -> Int32 {
        var earliest: Timestamp?
        for slot in sockets.indices {
            if let timer = sockets[slot].timer, earliest.map({ timer < $0 }) ?? true { earliest = timer }
        }
        let timers = PollTimeout.milliseconds(until: earliest, now: clock.now(), manual: clock.manual != nil)
        // Acknowledgements come in real time, whatever the clock: look again soon.
        guard sockets.contains(where: { $0.watched }) else { return timers }
        return PollTimeout.earlier(timers, Self.acknowledgementPollMilliseconds)
    }

    /// A socket that could take the bytes its session encoded and has not been given them.
    var hasUnwrittenBytes: Bool {
        sockets.contains { $0.tls != nil && !$0.writeBlocked && $0.hasOutbound }
    }

    /// How often a watched socket is asked what the peer acknowledged.
    static let acknowledgementPollMilliseconds: Int32 = 10

    /// Ticks every slot whose timer is due.
    mutating func tickDueTimers() {
        now = clock.now()
        for slot in sockets.indices {
            guard let timer = sockets[slot].timer, timer <= now else { continue }
            sockets[slot].timer = nil
            if let tls = sockets[slot].tls, pool.isConnected(slot: slot) { reportAcknowledgements(slot, tls) }
            pool.tick(slot: slot, now: now)
        }
    }

    /// Asks the watched sockets what the peer acknowledged.
    mutating func reportWatchedAcknowledgements() {
        for slot in sockets.indices where sockets[slot].watched {
            if let tls = sockets[slot].tls, pool.isConnected(slot: slot) { reportAcknowledgements(slot, tls) }
        }
    }

    // MARK: Commands

    /// One command, fed to the pool.
    mutating func handle(_ command: LoopCommand) {
        switch command {
        case .push(let record):
            for index in 0..<UInt32(record.count) { take(record, index) }
        case .refuse(let record, let error):
            for index in 0..<UInt32(record.count) { pool.refuse(SessionTag(record, index: index), error) }
        case .flush(let confirm, let id, let reply):
            now = clock.now()
            reportReplies[id] = reply
            pool.flush(confirm: confirm, reply: id, now: now)
        case .shutdown(let id, let reply):
            now = clock.now()
            reportReplies[id] = reply
            pool.shutdown(reply: id, now: now)
        case .cancelReply(let id):
            reportReplies[id] = nil
            pool.cancel(reply: id)
        case .connectResult(let slot, let attempt, let result):
            connectFinished(slot, attempt: attempt, result)
        case .release:
            pool.release(now: now)
        case .listenersChanged:
            pool.wantsTransmitted(dispatcher.wantsTransmitted)
        case .barrier(let reply):
            dispatcher.call(reply)
        case .acknowledgementBarrier(let id, let reply):
            wakeReplies[id] = reply
            pool.acknowledgementBarrier(reply: id)
        case .clockAdvanced:
            break
        }
    }

    /// Notification `index` of a push, to the pool. (Per notification, not per command: a
    /// batch can terminate the connection midway.)
    private mutating func take(_ record: PushRecord, _ index: UInt32) {
        handledSinceClockRead += 1
        if handledSinceClockRead == Self.pushesPerClockRead {
            handledSinceClockRead = 0
            now = clock.now()
        }
        let token = record.token(at: index)
        guard token.count == Device.binaryTokenLength else {
            // Apple's device tokens are of variable length; the binary interface's are 32 bytes.
            pool.refuse(SessionTag(record, index: index), Device.binaryRefusal(length: token.count))
            return
        }
        pool.push(
            SessionTag(record, index: index), token: token, payload: record.payload,
            expiry: record.expiry, priority: record.priority, retryLimit: record.retryLimit, awaited: record.isAwaited,
            now: now)
    }

    private mutating func connectFinished(_ slot: Int, attempt: Int, _ result: ConnectResult) {
        now = clock.now()
        switch result {
        case .connected(let handoff):
            let connection = handoff.take()
            guard pool.socketOpened(slot: slot, attempt: attempt, now: now) else {
                // An attempt the pool gave up on (its connect timeout): it counted as failed.
                connection.close()
                return
            }
            // Attached before the pool's actions for it (`write` above all) are performed.
            ensureSocket(slot)
            sockets[slot].detach()
            sockets[slot].tls = connection
            sockets[slot].readReady = true
            sockets[slot].acknowledgements.reset()
        case .failed(let error):
            pool.socketFailed(slot: slot, attempt: attempt, error: error, now: now)
        }
    }

    // MARK: The pool's actions

    /// Performs or reports every action the pool asked for, in order.
    mutating func performActions() {
        while let action = pool.nextAction() {
            // Consumed, so the cases' payloads (the tag above all) are moved out rather
            // than retained, and released again with the action.
            switch consume action {
            case .connect(let slot, let attempt):
                connector.start { [inbox] result in
                    inbox.post(.connectResult(slot: slot, attempt: attempt, ConnectResult(result)))
                }
            case .write(let slot):
                ensureSocket(slot)
                sockets[slot].hasOutbound = true
            case .close(let slot, let reset):
                closeSocket(slot, reset: reset)
            case .scheduleTimer(let slot, let deadline):
                ensureSocket(slot)
                sockets[slot].timer = deadline
            case .watchAcknowledgements(let slot, let on):
                ensureSocket(slot)
                sockets[slot].watched = on
            case .connected(let open):
                dispatcher.event(.connected(openSockets: open))
            case .disconnected(let open):
                dispatcher.event(.disconnected(openSockets: open))
            case .event(let event):
                report(event)
            case .errorCallback(let code, let tag):
                dispatcher.errorCallback(code, tag?.record, index: tag?.index ?? 0)
            case .outcome(let tag, let outcome):
                let index = tag.index
                // The tag's reference moves into `record` rather than being copied.
                let record = (consume tag).record
                dispatcher.outcome(record, index: index, outcome)
            case .reply(let id, let report):
                guard let reply = reportReplies.removeValue(forKey: id) else { break }
                // Decided here, before anything else is reported: a report whose caller
                // stopped waiting (its `cancelReply` still on the way) joins the next one.
                guard reply.claim() else {
                    carriedOver.add(DeliveryReport(report))
                    break
                }
                var delivered = DeliveryReport(report)
                delivered.add(carriedOver)
                carriedOver = DeliveryReport()
                dispatcher.reply(reply.deliver, delivered)
            case .wake(let id):
                if let reply = wakeReplies.removeValue(forKey: id) { dispatcher.call(reply) }
            case .endEvents:
                dispatcher.finish()
            case .stop:
                stopped = true
            }
        }
    }

    /// A connection event, with the notification and device its tag names.
    private mutating func report(_ event: SessionEvent<PushRecord>) {
        switch event {
        case .timeout:
            dispatcher.event(.timeout)
        case .transmitted(let tag):
            let record = tag.record
            if let device = record.device(at: tag.index) { dispatcher.event(.transmitted(record.notification, device)) }
        case .completed:
            dispatcher.event(.completed)
        case .transmissionError(let status, let tag):
            if let tag {
                let record = tag.record
                dispatcher.event(.transmissionError(status, record.notification, record.device(at: tag.index)))
            } else {
                dispatcher.event(.transmissionError(status, nil, nil))
            }
        case .cacheTooSmall(let shortfall):
            dispatcher.event(.cacheTooSmall(shortfall))
        case .graceWindowTooShort(let count):
            dispatcher.event(.graceWindowTooShort(count))
        case .cacheFull(let limit):
            dispatcher.event(.cacheFull(limit: limit))
        case .socketError(let error):
            dispatcher.event(.socketError(error))
        case .connectAttemptFailed(let error, let next):
            dispatcher.event(.connectAttemptFailed(error, nextAttemptIn: next))
        case .error(let error):
            dispatcher.event(.error(error))
        case .connected, .disconnected, .flushed, .shutdownComplete:
            break  // consumed by the pool
        }
    }

    /// Makes sure the pool's slot `slot` has its socket slot.
    mutating func ensureSocket(_ slot: Int) {
        while sockets.count <= slot { sockets.append(SocketSlot()) }
    }
}

extension DeliveryReport {
    /// The caller's report of what the pool reported, each notification named by its record.
    init(_ report: PoolReport<PushRecord>) {
        self.init()
        accepted = report.accepted
        possiblyDuplicated = report.possiblyDuplicated
        resent = report.resent
        confirmed = report.confirmed
        for (tag, outcome) in report.notAccepted {
            let pushed = tag.record
            record(outcome, notification: pushed.notification, device: pushed.device(at: tag.index))
        }
    }
}
