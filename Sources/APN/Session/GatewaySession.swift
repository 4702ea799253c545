package import APNWire

/// The logic that decides, for every notification handed to one gateway connection, what
/// happened to it: a pure state machine with no sockets, threads or clock of its own
/// (the h11 / sans-I/O pattern). The I/O driver feeds it inputs and performs its actions.
///
/// ## Queues
/// A notification moves through two FIFOs and leaves through exactly one outcome:
/// `pending` (not yet encoded) → `sent` (encoded on this connection, in identifier
/// order). The first `takenCount` entries of `sent` are *written*: taken whole by the
/// socket, outcome not yet known; the rest are *in flight*: their frames wait in
/// ``outboundBytes``.
///
/// ## The resend cache
/// By default (`cacheLength` nil) every written entry keeps its payload until its outcome
/// is known: nothing is evicted, so an error response however late can always be acted
/// on. The memory they hold is counted (``cacheCharge(tokenCount:payloadCount:)``); at
/// `cacheMemoryLimit` nothing more is encoded (`cacheFull`, once) and an automatic
/// confirmation marker is written, whose answer accepts everything before it. With
/// `cacheLength` set, node-apn's FIFO: the newest `cacheLength` written entries keep
/// their payload; older ones are *evicted*: still awaiting an outcome, not resendable.
///
/// ## What the grace window may accept
/// Only what the gateway can have processed: with `tracksAcknowledgements`, a written
/// entry is accepted a grace window after the peer's TCP acknowledged its bytes (or after
/// it was written, if that was later), never while they are still in the kernel's send
/// queue; the driver reports acknowledgements as it sees them (``awaitsAcknowledgement``)
/// and before every `tick` and `closed`. While part of an error response has arrived,
/// nothing is accepted by time at all.
///
/// ## Phases and transitions
/// | phase | input | what happens | next phase |
/// |---|---|---|---|
/// | idle | push | queue it; lazy connect: `connect` | connecting |
/// | connecting | connected | identifiers restart at 1; `connected` event; encode and `write` | connected |
/// | connecting | connectFailed | `socketError`; 513 if credentials; else `connectAttemptFailed` with the delay (nil when terminating) | backingOff (1 s, 2 s, 4 s …) or terminated (514 after `connectionRetryLimit` retries, or the first failure without `retriesConnections`; errorCallback(514, n) once per waiting n) |
/// | connecting | tick past connectTimeout | `abortConnect`, then the driver's connectFailed counts as a timeout | backingOff / terminated |
/// | backingOff | tick past the delay | `connect` | connecting |
/// | connected | push (nothing pending) | encoded at once, next identifier (1, 2 … 0xFFFFFFFF, 1 …); `write` when the buffer was empty | connected |
/// | connected | bytesWritten | whole frames become written (`transmitted` if asked); encode more; `completed` when all is written | connected |
/// | connected | cache memory reaches `cacheMemoryLimit` (`cacheLength` nil) with more to send | `cacheFull` (once); an automatic marker; nothing more encoded until outcomes free room | connected |
/// | connected | `confirmationInterval` notifications encoded since the last marker | an automatic marker | connected |
/// | connected | an awaited notification (`Connection.send`) or the last of a run of resent copies encoded with nothing queued behind it | an automatic marker right after it: the answer settles it, and all before it, in a round trip (then a fresh connection) | connected |
/// | connected | bytesReceived (error response, status s, id x; reassembled; an unknown s as it came) | older entries accepted; x rejected (s) with errorCallback(s, x) — or, for s = 10, x and older accepted; later ones resent first, in order (retry limit → 512; without buffering: failed); x evicted: `cacheTooSmall`, errorCallback(255, nil), evicted ones after x unknown fate; x written here but already settled: errorCallback(255, nil), everything written resent (the gateway discarded it); x = 0 or never written here: errorCallback(255, nil), everything written resent as possibly duplicated; in-flight frames requeued without counting a retry; `close` | closing |
/// | connected | closed without an error response (clean, EOF or reset) | entries past the grace window (and acknowledged) accepted; in-flight requeued; other written ones: resent as possibly duplicated, or unknown fate with errorCallback(error, n) (``SilentClosePolicy``) | idle (reconnects at once if work remains) |
/// | connected | the same, within `settleWindow` of connecting, nothing written or a TLS alert from the gateway | what was written requeued as it was; `socketError` ("socket unusable after connection", the certificate hint); counted as a failed attempt | backingOff, or terminated (514) past the retry limit |
/// | connected | the same, within `settleWindow`, after writing | as any silent close, then counted as a failed attempt | backingOff, or terminated (514) |
/// | connected | tick | entries past the grace window and acknowledged accepted (none while part of an error response has arrived); idle past `idleTimeout`: `timeout`, `close`; shutdown grace over: `close` (both once nothing written is unsettled) | connected / closing |
/// | connected | tick, part of an error response arrived and nothing more for a grace window | `socketError`; handled as a lost connection (nothing accepted by time); `close` | closing |
/// | connected | acknowledgement report with no progress since the last while bytes wait | nothing is accepted by the grace window until the peer acknowledges more (it may have stopped reading: what its TCP took may sit unread) | connected |
/// | connected | the same for a fifth of the grace window, 500 ms at least (`stallDetectionNanos`): the peer stalled | for the rest of the connection nothing is accepted by time; an automatic marker is queued, whose answer accepts everything before it; unanswered a grace window after the peer acknowledged it: handled as a lost connection | connected |
/// | connected | tick, bytes unwritten or unacknowledged and no progress for `writeStallTimeout` (30 s) or `idleTimeout`, whichever is shorter (a peer that stopped reading) | `timeout`, `socketError`; handled as a lost connection (in-flight requeued, written ones per the silent-close policy — none accepted by time); `close`; counted as a failed attempt | closing |
/// | closing | closed | `disconnected`; reconnect if work remains; `shutdownComplete` if asked | idle / connecting |
/// | terminated | push | failed 515 | terminated |
/// | any | flush | a marker frame (empty token, next identifier) is queued and nothing is written after it; its error response settles everything before it (`flushed(confirmed: true)`), then a fresh connection; unanswered within the grace window, lost with its connection, or met by an answer that names nothing usable: `flushed(confirmed: false)`, never resent. Automatic markers work the same way without the events, and are dropped rather than resent | — |
/// | any | shutdown | finish what is queued, close once everything written is settled (its grace window, or sooner; a peer that stops acknowledging is given up as stalled, within 10 s even without `idleTimeout`); `shutdownComplete` | — |
///
/// ## Contract with the driver
/// After every input, drain ``nextAction()``. Every `connect` is answered by exactly one
/// `connected` or `connectFailed` (also after `abortConnect`); every established
/// connection by exactly one `closed` (also after `close`). Call `tick` at the time of the
/// last `scheduleTimer`. With `tracksAcknowledgements`, report ``acknowledged(bytes:now:)``
/// before each `tick` and each `closed`, and every few milliseconds of real time while
/// ``awaitsAcknowledgement``.
///
/// `Record`: the class of the caller's records, which the session only carries in each
/// ``SessionTag`` and hands back in its reports (a connection's `PushRecord`).
package struct GatewaySession<Record: AnyObject>: ~Copyable {
    package let configuration: SessionConfiguration
    /// The current count bound of the resend cache (nil: bounded by memory); grows on cache
    /// misses when `autoAdjustCache` is on.
    package internal(set) var cacheLength: Int?
    /// Bytes the written entries hold for resending (`cacheLength` nil), and their bound
    /// (`Int.max` with a count bound).
    package internal(set) var cacheMemory = 0
    let cacheMemoryLimit: Int
    /// `cacheFull` was reported (once per session).
    var cacheFullReported = false
    /// What error responses showed of the gateway's answer time and of runs between
    /// rejections: how fast a connection may write after them.
    var pacing = AnswerPacing()
    /// What this connection's byte stream has carried; new with each connection.
    var stream = StreamPosition()

    var phase = Phase.idle
    var pending = RingBuffer<SessionEntry<Record>>()
    var sent = RingBuffer<SessionEntry<Record>>()
    /// `sent[0..<takenCount]` are written: taken whole by the socket.
    var takenCount = 0
    /// Bytes of the first in-flight frame (`sent[takenCount]`) the socket already took.
    var inFlightTaken = 0
    /// `sent[0..<evictedCount]` are evicted (payload released; only with `cacheLength`);
    /// `evictedCount <= takenCount`.
    var evictedCount = 0
    /// Encoded frames the driver should write, front first.
    package internal(set) var outboundBytes: WireBuffer
    var nextIdentifier: UInt32
    var errorDecoder = ErrorResponseDecoder()
    /// Consecutive failed connection attempts (a connection that ends within the settle
    /// window counts as one).
    var failureCount = 0
    /// Notifications put back to be written again (after an error response or a silent
    /// close), since the session was created.
    package internal(set) var resendCount = 0
    /// Whether `transmitted` events are emitted (``wantsTransmitted(_:)``).
    var emitsTransmitted: Bool
    var actions = RingBuffer<SessionAction<Record>>(minimumCapacity: 64)
    var scheduledDeadline: Timestamp?
    var shutdownRequested = false
    /// A flush marker is written and nothing may follow it on this connection.
    var awaitingMarker = false
    /// Something was pushed since the last `completed` event.
    var queuedSinceCompleted = false

    /// Where the session is, with what it keeps only there. (The queues, the outbound
    /// buffer and the stream position stay stored properties although they matter only
    /// while connected: they are touched per notification, and an enum payload cannot be
    /// changed in place, only copied out and back.)
    enum Phase {
        case idle
        /// `deadline`: when the attempt is given up (`connectTimeout`); `aborted`: it was,
        /// and the driver's `connectFailed` is awaited.
        case connecting(deadline: Timestamp?, aborted: Bool)
        case connected(Link)
        /// The session asked the driver to close (after an error response, when idle, at
        /// shutdown, or on a malformed response) and awaits `closed`. `failure`: the
        /// connection failed (a malformed response), so the close counts as a failed attempt.
        case closing(failure: APNError?)
        case backingOff(until: Timestamp)
        case terminated(APNError)
    }

    /// The times an established connection keeps.
    struct Link {
        /// When the connection was established.
        let since: Timestamp
        /// The last write progress on the connection.
        var lastActivity: Timestamp
        /// When bytes last came from the gateway: a partial error response times out from here.
        var lastReceivedAt: Timestamp
    }

    /// When the current connection was established (zero when there is none).
    var connectedAt: Timestamp {
        if case .connected(let link) = phase { link.since } else { .zero }
    }

    /// The last write progress on the current connection (zero when there is none).
    var lastActivity: Timestamp {
        if case .connected(let link) = phase { link.lastActivity } else { .zero }
    }

    /// `graceWindow` and `idleTimeout` in nanoseconds, for the per-write arithmetic.
    let graceNanos: Int64
    let idleNanos: Int64?
    let writeStallNanos: Int64?
    let settleNanos: Int64

    package init(configuration: SessionConfiguration = SessionConfiguration()) {
        precondition((configuration.cacheLength ?? 1) >= 1, "cacheLength must be at least 1")
        precondition((configuration.confirmationInterval ?? 1) >= 1, "confirmationInterval must be at least 1")
        precondition(configuration.firstIdentifier != 0, "identifier 0 is reserved")
        self.configuration = configuration
        // Four batches of room: the buffer is refilled as the socket takes each TLS record,
        // so it reaches its end with about a batch still unwritten and slides that to the
        // front. With room for two batches that slide copied every byte once more.
        self.outboundBytes = WireBuffer(capacity: 4 * configuration.writeBatchBytes)
        self.graceNanos = configuration.graceWindow.nanosecondsSaturated
        self.idleNanos = configuration.idleTimeout?.nanosecondsSaturated
        self.writeStallNanos = configuration.writeStallTimeout?.nanosecondsSaturated
        self.cacheLength = configuration.cacheLength
        self.cacheMemoryLimit = configuration.cacheLength == nil ? max(1, configuration.cacheMemoryLimit) : .max
        self.nextIdentifier = configuration.firstIdentifier
        self.emitsTransmitted = configuration.emitsTransmitted
        self.settleNanos = configuration.settleWindow.nanosecondsSaturated
    }

    /// The next action to perform or report, or nil when there is none.
    package mutating func nextAction() -> SessionAction<Record>? {
        if actions.isEmpty { return nil }
        return actions.removeFirst()
    }

    /// Notifications not yet written, written but unconfirmed, in total.
    package var unresolvedCount: Int { pending.count + sent.count }

    /// Entries encoded but not yet taken whole by the socket.
    var inFlightCount: Int { sent.count - takenCount }

    /// Whether a push now would be encoded at once: connected, nothing queued ahead of it,
    /// and room in the outbound buffer. A pool hands notifications to such sessions first.
    /// (A paced window that is full, see ``AnswerPacing``, still queues the push.)
    package var acceptsImmediately: Bool {
        guard case .connected = phase else { return false }
        return pending.isEmpty && !awaitingMarker && outboundBytes.readableBytes < configuration.writeBatchBytes
            && cacheMemory < cacheMemoryLimit
    }

    /// Whether anything pushed is not yet written whole (what `completed` waits for).
    package var hasUnwrittenWork: Bool { !pending.isEmpty || inFlightCount > 0 }

    /// Notifications queued and not yet encoded.
    package var pendingCount: Int { pending.count }

    /// Whether bytes the socket took wait for the peer's acknowledgement (with
    /// `tracksAcknowledgements`): the driver should then report ``acknowledged(bytes:now:)``
    /// every few milliseconds of real time — acknowledgements arrive in real time, whatever
    /// clock the session runs on, and each entry's grace window starts when its
    /// acknowledgement is reported.
    package var awaitsAcknowledgement: Bool {
        guard case .connected = phase else { return false }
        return configuration.tracksAcknowledgements && stream.acknowledgedBytes < stream.takenBytes
    }

    /// Whether a connection is established (and not being closed).
    package var isConnected: Bool {
        if case .connected = phase { true } else { false }
    }

    /// Whether nothing is open or being opened and no reconnect is scheduled.
    package var isIdle: Bool {
        if case .idle = phase { true } else { false }
    }

    /// Whether the session is terminated (credentials or connection retry limit).
    package var isTerminated: Bool {
        if case .terminated = phase { true } else { false }
    }

    // MARK: inputs

    /// A notification to send. Its retry limit: negative = unlimited resends. `awaited`: a
    /// caller waits for its outcome (`Connection.send`), so when it is encoded with nothing
    /// queued behind it a confirmation marker follows it, and the gateway's answer settles
    /// it in a round trip instead of the grace window.
    package mutating func push(
        _ tag: consuming SessionTag<Record>, token: consuming [UInt8], payload: consuming [UInt8], expiry: UInt32 = 0,
        priority: UInt8 = 10, retryLimit: Int = -1, awaited: Bool = false, now: Timestamp
    ) {
        let retries = retryLimit < 0 ? -1 : Int32(clamping: retryLimit)
        // Taken as consumed and moved into the entry, which each branch moves on: the
        // caller's references become the entry's, with no retain and release per field.
        let entry = SessionEntry<Record>(
            token: consume token, payload: consume payload, tag: consume tag, expiry: expiry, retriesLeft: retries,
            priority: priority, flags: awaited ? .awaited : [])
        switch phase {
        case .terminated:
            fail(entry, APNError.connectionTerminated(), status: .connectionTerminated)
        case _ where !pending.isEmpty:
            // Behind others that wait: `pump` ran after the input that queued them and left
            // nothing it could do (nothing to encode, no `completed`, no close, no deadline
            // change), and one more waiting entry changes none of that. At full speed most
            // pushes land here while the outbound buffer is full.
            queuedSinceCompleted = true
            pending.append(consume entry)
        case _ where acceptsImmediately && withinPacedWindow(now):
            // The common case at full speed: straight into the outbound buffer. Only the
            // first entry in flight can change the deadline (it ends the idle wait).
            queuedSinceCompleted = true
            let wasIdle = inFlightCount == 0
            let flags = entry.flags
            encode(consume entry)
            if !flags.isEmpty { confirmPromptly(after: flags) }
            if wasIdle { updateTimer(now) }
        default:
            queuedSinceCompleted = true
            pending.append(consume entry)
            pump(now)
        }
    }

    /// Asks for a confirmed flush: everything pushed before it ends accepted or rejected.
    package mutating func flush(now: Timestamp) {
        if configuration.command == .simple || isTerminated {
            // Command 0 has no identifiers, so the gateway cannot answer a marker frame.
            emit(.event(.flushed(confirmed: false)))
        } else if unresolvedCount == 0 {
            emit(.event(.flushed(confirmed: true)))
        } else {
            pending.append(.flushMarker())
            pump(now)
        }
    }

    /// Whether to emit a `transmitted` event per notification written: the driver asks for
    /// them while someone listens (they cost one report per notification).
    package mutating func wantsTransmitted(_ wanted: Bool) {
        emitsTransmitted = wanted
    }

    /// Asks to finish what is queued, wait the grace window, close and report
    /// `shutdownComplete`.
    package mutating func shutdown(now: Timestamp) {
        shutdownRequested = true
        pump(now)
    }

    /// The connection attempt succeeded.
    package mutating func connected(now: Timestamp) {
        guard case .connecting = phase else { return }
        phase = .connected(Link(since: now, lastActivity: now, lastReceivedAt: now))
        if settleNanos == 0 { failureCount = 0 }
        nextIdentifier = configuration.firstIdentifier
        errorDecoder = ErrorResponseDecoder()
        stream = StreamPosition()
        emit(.event(.connected))
        pump(now)
    }

    /// Opens a connection without a notification to send (to keep `minConnections` open);
    /// nothing happens unless the session is idle.
    package mutating func open(now: Timestamp) {
        guard case .idle = phase else { return }
        startConnect(now)
        updateTimer(now)
    }

    /// The connection attempt failed. Use ``APNError/Code/credentials`` for credential
    /// problems: those terminate at once (513).
    package mutating func connectFailed(_ error: APNError, now: Timestamp) {
        guard case .connecting(_, let aborted) = phase else { return }
        let reason = aborted ? APNError.connectTimeout(configuration.connectTimeout ?? .zero, underlying: error) : error
        emit(.event(.socketError(reason)))
        if reason.code == .credentials {
            terminate(status: .moduleInitialisationFailed, APNError.initialisationFailed(reason))
            return
        }
        countFailure(reason, now: now)
    }

    /// One more failed attempt: terminate past the retry limit, else back off.
    mutating func countFailure(_ reason: APNError, now: Timestamp) {
        failureCount += 1
        let limit = configuration.connectionRetryLimit
        if !configuration.retriesConnections || (limit > 0 && failureCount > limit) {
            emit(.event(.connectAttemptFailed(reason, nextAttemptIn: nil)))
            terminate(status: .connectionRetryLimitExceeded, APNError.connectionRetryLimitExceeded(attempts: failureCount, last: reason))
            return
        }
        let delay = backoff(afterFailures: failureCount)
        emit(.event(.connectAttemptFailed(reason, nextAttemptIn: delay)))
        phase = .backingOff(until: now + delay)
        pump(now)
    }

    /// The connection ended within the settle window without an error response: the
    /// gateway took the TLS handshake but not us.
    mutating func connectionUnusable(_ error: APNError?, now: Timestamp) {
        let reason = APNError.unusableAfterConnect(error)
        emit(.event(.socketError(reason)))
        countFailure(reason, now: now)
    }

    /// The socket took `count` more bytes from the front of ``outboundBytes``.
    package mutating func bytesWritten(_ count: Int, now: Timestamp) {
        guard case .connected(var link) = phase, count > 0 else { return }
        outboundBytes.consume(count)
        stream.takenBytes += Int64(count)
        var taken = inFlightTaken + count
        while takenCount < sent.count, case let length = Int(sent[takenCount].frameLength), length <= taken {
            taken -= length
            markTaken(now)
        }
        inFlightTaken = taken
        link.lastActivity = now
        phase = .connected(link)
        pump(now)
    }

    /// The peer's TCP has acknowledged the first `bytes` bytes the socket took on this
    /// connection (with `tracksAcknowledgements`; the driver maps its socket's counts to
    /// the bytes of ``outboundBytes``). Report before each `tick` and each `closed`.
    package mutating func acknowledged(bytes: Int64, now: Timestamp) {
        guard case .connected = phase, configuration.tracksAcknowledgements else { return }
        guard bytes > stream.acknowledgedBytes else {
            // No progress. A stall is counted from the first report that saw bytes waiting,
            // not from the last write: reports come in real time, and a clock that jumped
            // (a test's) must not make a healthy peer look stalled.
            if stream.acknowledgedBytes < stream.takenBytes, stream.unacknowledgedSince == nil {
                stream.unacknowledgedSince = now
                updateTimer(now)
            } else if let since = stream.unacknowledgedSince, !stream.stalled,
                now.nanoseconds &- since.nanoseconds >= stallDetectionNanos {
                noteStall(now)
            }
            return
        }
        stream.acknowledgedBytes = min(bytes, stream.takenBytes)
        stream.acknowledgementTimes.append(AcknowledgementTime(offset: stream.acknowledgedBytes, at: now))
        stream.unacknowledgedSince = nil
        // What waited only for this can be settled now (its window started long enough
        // ago), and an idle or shut-down connection closed.
        resolveByGraceWindow(now)
        closeIfIdle(now)
        pump(now)
    }

    /// Bytes arrived from the gateway.
    package mutating func bytesReceived(_ bytes: [UInt8], now: Timestamp) {
        guard case .connected(var link) = phase, configuration.command != .simple else { return }
        link.lastReceivedAt = now
        phase = .connected(link)
        errorDecoder.feed(bytes)
        do throws(WireError) {
            if let response = try errorDecoder.next() {
                handleErrorResponse(response, now: now)
            }
        } catch {
            // Not an error response: the stream cannot be trusted. Treat it as a broken
            // connection, closing it ourselves.
            let failure = APNError.malformedResponse(error)
            abandon(failure, now: now)
            // A peer that is not a gateway (wrong port, a proxy) must back off like a
            // failed attempt, not be reconnected to at once, forever.
            phase = .closing(failure: failure)
        }
        pump(now)
    }

    /// The established connection closed: `error` nil for a clean close (close_notify or
    /// EOF), else what broke it.
    package mutating func closed(error: APNError?, now: Timestamp) {
        switch phase {
        case .closing(let failure):
            phase = .idle
            emit(.event(.disconnected))
            if let failure {
                countFailure(failure, now: now)
                return
            }
            // We closed (error response, idle, shutdown): the gateway was talking to us.
            failureCount = 0
        case .connected(let link) where settleNanos > 0 && now.nanoseconds &- link.since.nanoseconds < settleNanos:
            if stream.identifiersTaken == 0 || error?.code == .refusedByGateway {
                // Refused right after the handshake, with nothing processed (nothing was
                // written, or the gateway's TLS refused the session): all sent again
                // after the backoff as it was, and the certificate is the likely cause.
                takeBackAfterRefusal()
                phase = .idle
                emit(.event(.disconnected))
                connectionUnusable(error, now: now)
            } else {
                // The gateway may have taken what was written: a silent close like any
                // other, still counted as a failed attempt so that a gateway that drops
                // every connection at once is not reconnected to in a loop.
                if let error { emit(.event(.socketError(error))) }
                connectionLost(error ?? APNError.connectionClosed(), now: now)
                phase = .idle
                emit(.event(.disconnected))
                countFailure(error ?? APNError.connectionClosed(), now: now)
            }
            return
        case .connected:
            if let error { emit(.event(.socketError(error))) }
            connectionLost(error ?? APNError.connectionClosed(), now: now)
            phase = .idle
            emit(.event(.disconnected))
            if settleNanos > 0 { failureCount = 0 }
        default:
            return
        }
        pump(now)
    }

    /// The time is now `now` (at or after the last `scheduleTimer`).
    package mutating func tick(now: Timestamp) {
        // Whatever deadline was requested has been served: ask again for the next one.
        scheduledDeadline = nil
        switch phase {
        case .connecting(let deadline?, aborted: false) where deadline <= now:
            phase = .connecting(deadline: nil, aborted: true)
            emit(.abortConnect)
        case .backingOff(let until) where until <= now:
            startConnect(now)
        case .connected:
            abandonIncompleteResponse(now)
            resolveByGraceWindow(now)
            closeIfIdle(now)
            closeIfStalled(now)
        default:
            break
        }
        pump(now)
    }
}

extension GatewaySession {
    /// Bytes one queued or cached notification occupies inside the session (its slot in a
    /// ring buffer), not counting the payload and token bytes, which are shared with the
    /// caller's `Notification` and `Device` rather than copied. For `apn-bench session`.
    package static var entryFootprint: Int {
        MemoryLayout<SessionEntry<Record>?>.stride
    }

    /// What one written notification counts against `cacheMemoryLimit`: its slot, its
    /// token, and its payload unless that is shared with the notification written just
    /// before it (`payloadCount` 0 then): a notification pushed to many devices holds one
    /// payload for all of them.
    package static func cacheCharge(tokenCount: Int, payloadCount: Int) -> Int {
        entryFootprint + tokenCount + payloadCount
    }
}
