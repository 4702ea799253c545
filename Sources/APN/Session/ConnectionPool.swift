/// The logic of one connection's pool of gateway sockets: which socket gets each
/// notification, when sockets open, when a flush or a shutdown is complete, and when the
/// connection is terminated. A pure state machine like ``GatewaySession``, whose sessions
/// (one per socket) it owns: no sockets, threads or clock of its own. The driver feeds it
/// inputs (pushes, what the sockets did, flush and shutdown requests, the time) and
/// performs the ``PoolAction``s it drains with ``nextAction()``.
///
/// ## Lifecycle and transitions
/// | lifecycle | input | what happens | next |
/// |---|---|---|---|
/// | unstarted | push | routed (below); from now on `minConnections` sockets are kept open | running |
/// | unstarted, running | push | to the slot filled last while its session takes notifications at once, else to any that does, else to a new slot (up to `maxConnections`), else to the one with the fewest waiting | — |
/// | running | a session reports `error` (513 or 514) | the `error` event; every other session finishes what it holds and closes | terminated |
/// | terminated | push | refused: failed 515 (`connectionTerminated`) | terminated |
/// | shuttingDown, closed, finished | push | refused: failed 515 (`shutDown`) | — |
/// | unstarted, running, terminated, shuttingDown | shutdown | every session finishes what it holds and closes | shuttingDown |
/// | shuttingDown | end of a turn, every session reported `shutdownComplete` | shutdown replies get the report; flushes still waiting get empty ones; acknowledgement barriers woken; `endEvents` | closed, or finished (`stop`) when released |
/// | closed | flush, shutdown | answered at once with the report since the last one | closed |
/// | closed | release | `stop` | finished |
/// | unstarted, running, terminated | release | a shutdown nobody waits for | shuttingDown (released) |
/// | any | flush, confirmed | every slot's session writes a marker; answered once every slot reported `flushed`, confirmed if each was (no slot: at once, confirmed) | — |
/// | any | flush, not confirmed | answered at the end of the first turn with no notification outstanding | — |
/// | any | cancel of a flush or shutdown reply | not answered; the flush or shutdown goes on, and the outcomes stay for the next report | — |
/// | any | end of a turn | barriers woken once no socket awaits an acknowledgement; `minConnections` sessions opened (running only); `completed` once nothing pushed is unwritten | — |
/// | any | socket opened or failed for an attempt given up on | ignored (the driver closes an opened one) | — |
/// | any | a session asks to abort its connect | the attempt is given up; the session is told it failed (its timeout) | — |
/// | any | a session asks to close | `close(slot)`; the session is told it closed | — |
///
/// ## Contract with the driver
/// After every input, drain ``nextAction()`` and perform the actions in order. Answer every
/// `connect` with `socketOpened` or `socketFailed`; tell the pool of every socket that
/// ends on its own (`socketClosed`) but not of those it asked to close. Report each slot's
/// acknowledgements before its `tick` and its `socketClosed`, and while it is watched.
/// Call ``endOfTurn(now:)`` after each batch of inputs: the checks across all slots run
/// there, once per batch rather than once per notification.
///
/// `Record`: the class of the caller's records, carried in each ``SessionTag`` and handed
/// back in the pool's actions and reports (see ``GatewaySession``).
package struct ConnectionPool<Record: AnyObject>: ~Copyable {
    package let configuration: PoolConfiguration
    var slots = SlotTable<PoolSlot<Record>>()
    var lifecycle = Lifecycle.unstarted
    var actions = RingBuffer<PoolAction<Record>>(minimumCapacity: 64)
    /// The time of the input being handled.
    var now = Timestamp.zero
    /// The slot new notifications go to while it accepts them at once.
    var fillIndex = 0
    /// Notifications handed to a session that have no outcome yet.
    var outstanding = 0
    /// Something was pushed since the last `completed`.
    var queuedSinceCompleted = false
    /// Outcomes since the last report.
    var report = PoolReport<Record>()
    /// Resends counted in reports so far, to report only the new ones.
    var resendsReported = 0
    /// Confirmed flushes by number; each slot lists the ones it has not answered yet.
    var flushes: [Int: FlushRequest] = [:]
    var nextFlushID = 0
    /// Unconfirmed flushes: answered once nothing is outstanding.
    var settleReplies: [ReplyID] = []
    var shutdownReplies: [ReplyID] = []
    /// Acknowledgement barriers waiting.
    var acknowledgementWaiters: [ReplyID] = []
    /// Sockets connected, as the sessions' `connected` and `disconnected` events counted
    /// them, in the order reported. (Counting the sessions' phases instead, when the event
    /// was handled, missed a socket that connected and was told to close in the same input
    /// — a shutdown met on connecting — and reported `connected(openSockets: 0)`.)
    var openSockets = 0
    /// `cacheFull` was reported: once per connection, whichever socket filled first.
    var cacheFullReported = false
    /// Whether sessions report `transmitted` (someone listens for it).
    var transmittedWanted = false

    /// Where the connection is in its life.
    enum Lifecycle {
        /// Nothing pushed yet: no socket is kept open.
        case unstarted
        /// Pushing; `minConnections` sockets are kept open.
        case running
        /// A session gave up (credentials, connection retry limit): so does the connection.
        /// Later pushes fail with 515; the other sessions finish what they hold.
        case terminated(APNError)
        /// Shutdown asked: later pushes fail with 515 (`shutDown`); `released`: nobody
        /// holds the connection any more, so it ends once closed.
        case shuttingDown(released: Bool)
        /// Shutdown finished: every socket is closed; flushes and shutdowns are answered at once.
        case closed
        /// Closed and released: nothing more happens.
        case finished
    }

    /// A confirmed flush waiting for its slots.
    struct FlushRequest {
        var remaining: Int
        var confirmed = true
        let reply: ReplyID
    }

    package init(configuration: PoolConfiguration) {
        self.configuration = configuration
    }

    /// The next action to perform or report, or nil when there is none.
    package mutating func nextAction() -> PoolAction<Record>? {
        if actions.isEmpty { return nil }
        return actions.removeFirst()
    }

    /// Lends the bytes slot `slot`'s session encoded and the socket has not taken.
    package func withOutboundBytes<Result>(_ slot: Int, _ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        slots[slot].session.outboundBytes.withUnsafeReadableBytes(body)
    }

    /// The number of slots (sockets opened or being opened, and idle ones kept).
    package var slotCount: Int { slots.count }

    /// Whether slot `slot`'s session holds its socket open: false from the moment it decided
    /// to close it (a `close` action queued, not yet performed). The driver reads and writes a
    /// socket only while this holds, so it can leave the actions to the named points of its
    /// turn and still never feed a socket the pool has let go.
    package func isConnected(slot: Int) -> Bool {
        slot < slots.count && slots[slot].session.isConnected
    }

    /// Whether slot `slot`'s session has encoded bytes its socket has not taken.
    package func hasOutboundBytes(slot: Int) -> Bool {
        slot < slots.count && !slots[slot].session.outboundBytes.isEmpty
    }

    // MARK: Inputs from the caller

    /// A notification to send (its retry limit: negative = unlimited): routed to a slot, or
    /// refused once the connection is shutting down or terminated. `awaited`: a caller
    /// waits for its outcome (see ``GatewaySession/push(_:token:payload:expiry:priority:retryLimit:awaited:now:)``).
    package mutating func push(
        _ tag: consuming SessionTag<Record>, token: consuming [UInt8], payload: consuming [UInt8], expiry: UInt32,
        priority: UInt8, retryLimit: Int, awaited: Bool = false, now: Timestamp
    ) {
        self.now = now
        switch lifecycle {
        case .unstarted, .running:
            lifecycle = .running
            queuedSinceCompleted = true
            outstanding += 1
            let slot = chooseSlot()
            slots[slot].session.push(
                consume tag, token: consume token, payload: consume payload, expiry: expiry, priority: priority,
                retryLimit: retryLimit, awaited: awaited, now: now)
            absorb(slot)
        case .terminated:
            refuse(tag, APNError.connectionTerminated())
        case .shuttingDown, .closed, .finished:
            refuse(tag, APNError.shutDown())
        }
    }

    /// A notification refused before it was queued: errorCallback first, then the event
    /// (node-apn's order for local paths), then the outcome.
    package mutating func refuse(_ tag: consuming SessionTag<Record>, _ error: APNError) {
        let status = error.status ?? .unknown
        emit(.errorCallback(.status(status), copy tag))
        emit(.event(.transmissionError(status, copy tag)))
        let outcome = NotificationOutcome.failed(error)
        report.record(tag, outcome)
        emit(.outcome(tag, outcome))
    }

    /// Report once everything pushed before has its outcome: confirmed, by a marker on every
    /// slot; else once nothing at all is outstanding.
    package mutating func flush(confirm: Bool, reply: ReplyID, now: Timestamp) {
        self.now = now
        switch lifecycle {
        case .closed, .finished:
            emit(.reply(reply, takeReport()))
            return
        default:
            break
        }
        guard confirm else {
            settleReplies.append(reply)
            return
        }
        guard !slots.isEmpty else {
            var report = takeReport()
            report.confirmed = true
            emit(.reply(reply, report))
            return
        }
        nextFlushID += 1
        flushes[nextFlushID] = FlushRequest(remaining: slots.count, reply: reply)
        for slot in slots.indices {
            slots[slot].flushes.append(nextFlushID)
            slots[slot].session.flush(now: now)
            absorb(slot)
        }
    }

    /// Finish what is queued, close every socket, then reply (nil: nobody waits).
    package mutating func shutdown(reply: ReplyID?, now: Timestamp) {
        self.now = now
        let released: Bool
        switch lifecycle {
        case .closed, .finished:
            if let reply { emit(.reply(reply, takeReport())) }
            return
        case .shuttingDown(let wasReleased):
            released = wasReleased
        case .unstarted, .running, .terminated:
            released = false
        }
        lifecycle = .shuttingDown(released: released)
        if let reply { shutdownReplies.append(reply) }
        for slot in slots.indices {
            slots[slot].shutDown = false
            slots[slot].session.shutdown(now: now)
            absorb(slot)
        }
    }

    /// The ``Connection`` is gone: shut down if not yet, then `stop` once closed.
    package mutating func release(now: Timestamp) {
        switch lifecycle {
        case .closed:
            lifecycle = .finished
            emit(.stop)
        case .finished:
            break
        case .shuttingDown:
            lifecycle = .shuttingDown(released: true)
        case .unstarted, .running, .terminated:
            shutdown(reply: nil, now: now)
            lifecycle = .shuttingDown(released: true)
        }
    }

    /// Whether `transmitted` events are wanted (someone listens for them).
    package mutating func wantsTransmitted(_ wanted: Bool) {
        transmittedWanted = wanted
        for slot in slots.indices { slots[slot].session.wantsTransmitted(wanted) }
    }

    /// Nobody waits for the flush, shutdown or barrier `reply` any more: it is not answered
    /// (the flush or shutdown itself goes on), so its report stays for the next one.
    package mutating func cancel(reply: ReplyID) {
        settleReplies.removeAll { $0 == reply }
        shutdownReplies.removeAll { $0 == reply }
        acknowledgementWaiters.removeAll { $0 == reply }
        for (id, request) in flushes where request.reply == reply { flushes[id] = nil }
    }

    /// Wake `reply` once no socket waits for the peer's acknowledgement.
    package mutating func acknowledgementBarrier(reply: ReplyID) {
        acknowledgementWaiters.append(reply)
    }

    // MARK: Inputs from the sockets

    /// The socket of `attempt` for `slot` connected; false when the pool gave that attempt
    /// up (the driver then closes the socket).
    package mutating func socketOpened(slot: Int, attempt: Int, now: Timestamp) -> Bool {
        guard isCurrentAttempt(slot, attempt) else { return false }
        self.now = now
        slots[slot].connecting = false
        slots[slot].session.connected(now: now)
        absorb(slot)
        return true
    }

    /// The connection attempt `attempt` for `slot` failed (ignored if given up already).
    package mutating func socketFailed(slot: Int, attempt: Int, error: APNError, now: Timestamp) {
        guard isCurrentAttempt(slot, attempt) else { return }
        self.now = now
        slots[slot].connecting = false
        slots[slot].session.connectFailed(error, now: now)
        absorb(slot)
    }

    /// The slot's socket ended on its own: `error` nil for a clean close.
    package mutating func socketClosed(slot: Int, error: APNError?, now: Timestamp) {
        self.now = now
        slots[slot].session.closed(error: error, now: now)
        absorb(slot)
    }

    /// The slot's socket took `count` more bytes of its outbound buffer.
    package mutating func bytesWritten(slot: Int, count: Int, now: Timestamp) {
        self.now = now
        slots[slot].session.bytesWritten(count, now: now)
        absorb(slot)
    }

    /// Bytes arrived on the slot's socket.
    package mutating func bytesReceived(slot: Int, _ bytes: [UInt8], now: Timestamp) {
        self.now = now
        slots[slot].session.bytesReceived(bytes, now: now)
        absorb(slot)
    }

    /// The peer's TCP acknowledged the first `bytes` bytes the slot's socket took on its
    /// connection.
    package mutating func acknowledged(slot: Int, bytes: Int64, now: Timestamp) {
        self.now = now
        slots[slot].session.acknowledged(bytes: bytes, now: now)
        absorb(slot)
    }

    /// The time the slot asked for (`scheduleTimer`) has come.
    package mutating func tick(slot: Int, now: Timestamp) {
        self.now = now
        slots[slot].session.tick(now: now)
        absorb(slot)
    }

    private func isCurrentAttempt(_ slot: Int, _ attempt: Int) -> Bool {
        slot < slots.count && slots[slot].connecting && slots[slot].attempt == attempt
    }
}

/// The knobs of a pool: its sessions' and how many sockets.
package struct PoolConfiguration: Sendable {
    /// Each socket's session settings.
    package var session = SessionConfiguration()
    /// Sockets kept open once something was pushed (at most `maxConnections`).
    package var minConnections = 1
    /// The most sockets opened; at least 1.
    package var maxConnections = 1

    package init() {}
}

/// One socket's place in the pool: its session and what the pool tracks of it.
struct PoolSlot<Record: AnyObject>: ~Copyable {
    var session: GatewaySession<Record>
    /// The number of the current connection attempt; answers to earlier ones are ignored.
    var attempt = 0
    var connecting = false
    /// Confirmed flushes waiting on this slot's `flushed`, oldest first.
    var flushes: [Int] = []
    /// The session reported `shutdownComplete` since shutdown was last asked.
    var shutDown = false
    /// The driver was told to watch acknowledgements (the session awaits one).
    var watched = false

    init(configuration: SessionConfiguration, transmittedWanted: Bool) {
        session = GatewaySession<Record>(configuration: configuration)
        session.wantsTransmitted(transmittedWanted)
    }
}
