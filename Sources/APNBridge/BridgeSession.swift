package import APNWire

/// What the bridge decides for one binary client connection: what is forwarded upstream,
/// what the client is told and when, and what goes to the tenant's ``ResendRecord``. A
/// pure state machine with no sockets, threads or clock (the sans-I/O pattern of
/// `GatewaySession`): the driver feeds it inputs and performs the ``BridgeAction``s it
/// returns. This is the executable statement of the bridge's exactly-once rule.
///
/// ## The rules (Apple's binary gateway semantics, issue #24)
/// 1. **Arrival order names notifications.** Each one decoded gets the next ordinal, 0, 1,
///    2 …, and answers name it by ordinal: command 0 carries no identifier, and clients
///    repeat identifiers.
/// 2. **Forward each one**, unless reading has stopped (rule 4) or the resend record
///    answers it (rule 7).
/// 3. **Acceptance is silent.** Accepted, unregistered (410, plus `queueFeedback` for the
///    token) and maybe-delivered write nothing: Apple's gateway said nothing for a
///    notification it took, and could not have said more about one whose fate is unknown.
/// 4. **The earliest refusal, once everything before it is answered.** Answers come in any
///    order. A bridge failure known at ordinal *e*, the decoder's own refusal, or any
///    refusal of a command 0 notification stops reading at once: nothing after *e* is
///    forwarded, and what the client writes after it is not read (it resends that after the
///    response). An upstream (or recorded) refusal of command 1 or 2 does not: reading
///    goes on within the window (rule 9). The client is told when every notification
///    before the earliest non-accepted one has its answer, and about that one: a refusal is
///    an error response naming its identifier (command 0: close alone, as Apple's gateway
///    did); a bridge failure is status 10 naming the last notification of the accepted
///    prefix (the longest run of ordinals from 0 all accepted), identifier 0 if there is
///    none, then close.
/// 5. **Shutdown** stops reading; once everything forwarded has its answer, or the grace
///    period is over, status 10 names the last of the accepted prefix, then close (a
///    refusal that rule 4 can report first is reported instead).
/// 6. **The client closed**: nothing more is written; answers still arrive.
/// 7. **Exactly once across reconnects.** When the connection ends, every notification it
///    forwarded after the point the client resends from (the reported refusal, else the
///    end of the accepted prefix) goes to the record with its answer, or pending with the
///    answer following when it arrives. When the client closes (it was told nothing), the
///    newest of the accepted prefix (``acceptedTailLimit``) go too: a client that gave the
///    connection up cannot know they were accepted, and resends them. A notification on a later connection whose content
///    matches a recorded one takes that entry instead of being forwarded, and the recorded
///    answer is its answer: accepted silently, a refusal reported by rule 4 naming the new
///    identifier, pending answered when the answer arrives. Nothing else is deduplicated:
///    the same content not recorded is forwarded, however often it comes.
/// 8. **A bounded window.** At most `window` notifications are unsettled, from the first
///    not in the accepted prefix to the newest: at the limit `pauseReading`, below it
///    `resumeReading`. Counting the whole span rather than only the unanswered bounds the
///    memory even while one answer is slow; the settled prefix is dropped as it grows.
/// 9. **Nothing a client wrote is discarded (#40).** A refusal reported with an error
///    response (command 1 or 2, not the decoder's own) does not close the connection: what
///    followed the refused notification goes to the record (rule 7), the response is
///    written, and reading goes on past the window — every notification read is forwarded
///    (or the record's answer taken) and remembered at once — until the client closes, the
///    decoder stops, a shutdown comes, ``collectionLimit`` were collected,
///    or (the driver's clock) the client writes nothing for a quiet period; then `close`.
///    A client resends what followed the refused notification from its cache, and the
///    record answers it; what it had written beyond its cache was forwarded already.
///    `refusalDistance` reports how many it had written after the refused one.
/// 10. **Known bad tokens (#40).** A notification whose token the upstream answered
///    `BadDeviceToken` for before (``KnownBadTokens``, per tenant) is refused with status 8
///    as it arrives, as Apple's gateway refused an invalid token on sight: not forwarded,
///    reported by rule 4 like any refusal. (A resend the record holds is answered from the
///    record instead; the driver decides, and passes `knownRefusal` only otherwise.)
///
/// ## Transitions
/// | phase | input | actions | next |
/// |---|---|---|---|
/// | running | received, reading | `forward`, or the record's answer taken; `pauseReading` at the window | running |
/// | running | received after `stopReading` | none: not read, no ordinal | running |
/// | running | locallyRefused / unknownCommand | a refusal at the next ordinal; `stopReading` | running |
/// | running | received, its token known bad | no `forward`: refused (8) at once | running |
/// | running | answered | 410: `queueFeedback`; a bridge failure or a command-0 refusal: `stopReading`; the prefix grows: `resumeReading` below the window | running |
/// | running | earliest non-accepted is an upstream refusal (commands 1, 2), all before it accepted, reading not stopped | `remember` what follows it; `writeErrorResponse`; `resumeReading` if paused | collecting |
/// | running | earliest non-accepted is any other refusal, all before it accepted | `remember` what follows it; `writeErrorResponse` (not for command 0); `close` | draining |
/// | running | … is a bridge failure | `remember` it and what follows; `writeErrorResponse(10, last of prefix)`; `close` | draining |
/// | running | shutdown | `stopReading`; once all is answered, or at graceExpired: `remember` from the first unsettled on, `writeErrorResponse(10, last of prefix)`, `close` | running / draining |
/// | running | clientClosed | `remember` the newest of the accepted prefix (``acceptedTailLimit``) and everything after it | draining |
/// | collecting | received | `forward` (or the record's answer taken); `remember` it | collecting |
/// | collecting | answered (a remembered one) | 410: `queueFeedback`; `rememberAnswer` | collecting |
/// | collecting | locallyRefused / unknownCommand / shutdown / the collection limit | `refusalDistance`; `stopReading`; `close` | draining |
/// | collecting | clientClosed (or quiet) | `refusalDistance` | draining |
/// | draining | answered (a remembered one) | 410: `queueFeedback`; `rememberAnswer` | draining |
/// | draining | nothing awaited | `finished` | finished |
///
/// ## Contract with the driver
/// Drain ``nextAction()`` after every input and perform the actions in order. Report
/// every `forward` exactly once with ``answered(_:_:)``, and every ``ResendRecord/Relay``
/// to the session it names the same way. Decode nothing while paused or after
/// `stopReading` (frames fed after `stopReading` are ignored; frames fed while paused are
/// taken, beyond the window). Keep the session until `finished`: answers for what it
/// remembered still come to it.
package struct BridgeSession: Sendable {
    /// The default ``window``: enough in flight to keep several HTTP/2 connections busy
    /// at Apple's latency, a few tens of megabytes at the largest payloads. A smaller one
    /// does not keep a refusal inside a fast client's resend cache: what the client has
    /// written and not yet seen read — its own kernel send buffer grows to a megabyte and
    /// more — is most of the refusal distance (#40, docs/PROTOCOL.md §8).
    package static let defaultWindow = 10_000
    /// How many notifications are collected after an error response (rule 9), at most: a
    /// client that keeps writing after it was told is cut off there, so the record it fills
    /// stays bounded (half its default capacity). Enough for what a client's kernel send
    /// buffer holds: Linux grows it to 4 MiB (`tcp_wmem`'s default maximum; measured at
    /// 1 MB on loopback even against a small receive window), 28,000 notifications of 150
    /// bytes.
    package static let collectionLimit = 50_000

    /// This connection's number, unique among those sharing the tenant's record.
    package let connection: UInt64
    /// How many notifications may be unsettled before reading pauses.
    package let window: Int

    var phase = Phase.running
    var reading = Reading.open
    /// The ordinal of `slots[0]`: everything before it is in the accepted prefix, dropped.
    var base = 0
    /// Every ordinal from `base` to the newest, answered or not.
    var slots = FIFO<Slot>()
    /// What each of `slots` forwarded (or matched in the record), at the same offsets; nil
    /// for a locally refused frame. Apart from the slots so that a slot is plain data: the
    /// decisions read and copy slots several times a notification, and a slot holding the
    /// notification retained and released its buffers at every copy.
    var notifications = FIFO<BridgedNotification?>()
    /// The identifier of the last notification of the accepted prefix, 0 while none.
    var lastAcceptedIdentifier: UInt32 = 0
    var shutdownRequested = false
    /// Reading goes on through the shutdown's grace (``shutdown(readingOn:)``).
    var readsThroughShutdown = false
    var graceOver = false
    /// Remembered pending (collecting, draining): their tokens, for the feedback of a 410
    /// answer.
    var rememberedPending: [Int: [UInt8]] = [:]
    /// The refusal distance (rule 9): notifications read after the refused one when its
    /// error response was decided, plus those collected after it.
    var refusalDistance = 0
    /// Notifications collected after the error response.
    var collected = 0
    /// The newest of the accepted prefix, at most ``acceptedTailLimit`` of them, with
    /// their ordinals and answers: remembered when the client closes (rule 7), since a
    /// client that gave the connection up knows nothing of what was accepted and resends it.
    var acceptedTail = FIFO<Accepted>()

    /// Empties the session's queues where its type is known (``FIFO/removeAll()``): called
    /// when the session is dropped, which would otherwise leave the notifications still held
    /// (up to ``acceptedTailLimit`` in the accepted tail) to the runtime's generic destroy.
    mutating func discardQueues() {
        slots.removeAll()
        notifications.removeAll()
        acceptedTail.removeAll()
        actions.removeAll()
    }

    /// One of ``acceptedTail``. A struct, not a tuple: a queue of tuples moved and destroyed
    /// its elements through the runtime's generic tuple value witnesses.
    struct Accepted {
        let ordinal: Int
        let notification: BridgedNotification
        let answer: ResendRecord.Answer
    }

    /// How many of the accepted prefix are kept for a client's close: the window, and at
    /// least the default window's 10,000 — a client that gave up resends everything it
    /// wrote there and could not settle (`Connection`: all 3,000 of a send whose gateway
    /// answered 3 s late), however small a window was chosen to bound what is in flight.
    var acceptedTailLimit: Int { max(window, Self.defaultWindow) }
    var actions = FIFO<BridgeAction>()

    /// Where the connection is.
    enum Phase {
        /// Reading (or stopped reading) and deciding.
        case running
        /// The error response for a refusal was written, and what the client had written
        /// after the refused notification by the time it read the response is still read,
        /// forwarded and remembered (rule 9), until it closes or goes quiet.
        case collecting
        /// The client was told what it will be told, or closed: answers for remembered
        /// notifications are still awaited.
        case draining
        /// Nothing more: `finished` was emitted.
        case finished
    }

    /// Whether the driver may decode frames.
    enum Reading {
        case open
        case paused
        case stopped
    }

    /// One unsettled ordinal (its notification in ``notifications``).
    struct Slot {
        let identifier: UInt32
        let command: Command
        var state: SlotState
    }

    /// What is known of one unsettled ordinal.
    enum SlotState {
        /// Forwarded, or a pending record entry taken: the answer is to come.
        case awaiting
        case answered(BridgeAnswer)
        /// The decoder refused the frame; it was never forwarded.
        case refusedLocally(StatusCode)
    }

    /// A session for the connection numbered `connection`, pausing at `window`.
    package init(connection: UInt64, window: Int = defaultWindow) {
        precondition(window >= 1, "window must be at least 1")
        self.connection = connection
        self.window = window
    }

    /// The next action to perform, or nil when there is none.
    package mutating func nextAction() -> BridgeAction? {
        actions.isEmpty ? nil : actions.removeFirst()
    }

    /// The ordinal the next decoded notification will get.
    package var nextOrdinal: Int { base + slots.count }

    /// Notifications held: from the first not in the accepted prefix to the newest.
    package var unsettledCount: Int { slots.count }

    /// Everything the session holds for an answer: its window, and what it handed to the
    /// record still pending (after its connection ended, or collected after a refusal).
    /// The process-wide budget counts this (``InFlightLedger``).
    package var heldCount: Int { slots.count + rememberedPending.count }

    /// Whether `finished` was emitted.
    package var isFinished: Bool { phase == .finished }

    // MARK: inputs

    /// A notification was decoded. Returns its ordinal, or nil when it is not read (after
    /// `stopReading`, or once the connection is over). A match in `record` is taken
    /// (``ResendRecord/take(_:for:now:)``) instead of forwarding; `now` is the record's time.
    /// With a `knownRefusal` (its token is one the upstream called bad, ``KnownBadTokens``)
    /// it is refused so at once, neither forwarded nor looked up (rule 10).
    @discardableResult
    package mutating func received(
        _ notification: BridgedNotification, record: inout ResendRecord, now: Duration,
        knownRefusal: StatusCode? = nil
    ) -> Int? {
        guard reading != .stopped else { return nil }
        if phase == .collecting { return collect(notification, record: &record, now: now, knownRefusal: knownRefusal) }
        guard phase == .running else { return nil }
        let ordinal = nextOrdinal
        let state: SlotState
        let taken = knownRefusal.map { ResendRecord.Answer.refused($0) }
            ?? record.take(notification.resendKey, for: Arrival(connection: connection, ordinal: ordinal), now: now)
        switch taken {
        case nil:
            state = .awaiting
            emit(.forward(ordinal: ordinal, notification))
        case .pending?: state = .awaiting
        case .accepted?: state = .answered(.accepted)
        case .maybeDelivered?: state = .answered(.maybeDelivered)
        case .refused(let status)?: state = .answered(.refused(status))
        }
        slots.append(Slot(identifier: notification.identifier, command: notification.command, state: state))
        notifications.append(notification)
        if case .answered(let answer) = state, Self.stopsReading(answer, notification.command) { stopReading() }
        decide()
        return ordinal
    }

    /// The decoder refused a frame itself (Apple's validation: token size, payload size …):
    /// a refusal at the next ordinal with `status`, known at once, and nothing after it is
    /// read. `identifier` is the frame's, 0 if it could not be read; for `command` 0 the
    /// client is closed without an error response.
    package mutating func locallyRefused(_ status: StatusCode, identifier: UInt32, command: Command) {
        // After an error response the decoder cannot read on past the frame: collecting ends.
        if phase == .collecting { return endCollecting() }
        guard phase == .running, reading != .stopped else { return }
        slots.append(Slot(identifier: identifier, command: command, state: .refusedLocally(status)))
        notifications.append(nil)
        stopReading()
        decide()
    }

    /// A frame began with a command byte that is not 0, 1 or 2. Apple's gateway closed
    /// without a response, as for a refused command 0 frame, and this is handled as one:
    /// once what came before is answered (an earlier refusal is reported instead), close.
    package mutating func unknownCommand() {
        locallyRefused(.protocolError, identifier: 0, command: .simple)
    }

    /// The upstream answered the notification `ordinal` (or a ``ResendRecord/Relay``
    /// brought the answer of the entry it took). Answers for unknown or already answered
    /// ordinals are ignored.
    package mutating func answered(_ ordinal: Int, _ answer: BridgeAnswer) {
        switch phase {
        case .running:
            guard ordinal >= base, ordinal < nextOrdinal else { return }
            let index = ordinal - base
            guard case .awaiting = slots[index].state else { return }
            slots[index].state = .answered(answer)
            if case .unregistered(let since) = answer, let token = notifications[index]?.token {
                emit(.queueFeedback(token: token, since: since))
            }
            if Self.stopsReading(answer, slots[index].command) { stopReading() }
            decide()
        case .collecting, .draining:
            guard let token = rememberedPending.removeValue(forKey: ordinal) else { return }
            if case .unregistered(let since) = answer { emit(.queueFeedback(token: token, since: since)) }
            emit(.rememberAnswer(Arrival(connection: connection, ordinal: ordinal), answer))
            finishIfDone()
        case .finished:
            return
        }
    }

    /// The bridge is shutting down (SIGTERM): stop reading; once everything forwarded has
    /// its answer, or at ``graceExpired()``, status 10 and close. `readingOn` (a bridge
    /// that journals what it reads, #41): read on through the grace, up to ten windows, so
    /// that what the client wrote is in the journal for the next bridge rather than lost in
    /// buffers when the connection closes — a client with a small resend cache cannot
    /// resend it.
    package mutating func shutdown(readingOn: Bool = false) {
        if phase == .collecting { return endCollecting() }
        guard phase == .running, !shutdownRequested else { return }
        shutdownRequested = true
        if readingOn {
            readsThroughShutdown = true
            updateWindow()
        } else {
            stopReading()
        }
        decide()
    }

    /// How many may be unsettled while reading on through a shutdown.
    var shutdownWindow: Int { window * 10 }

    /// The shutdown grace period is over: end now, with what is unanswered remembered as
    /// pending. Ignored unless shutting down.
    package mutating func graceExpired() {
        guard phase == .running, shutdownRequested else { return }
        graceOver = true
        decide()
    }

    /// The client closed the connection (EOF or reset): nothing more is written. What was
    /// forwarded after the accepted prefix is remembered, answered or pending, since the
    /// client may resend it on a new connection.
    package mutating func clientClosed() {
        if phase == .collecting { return endCollecting(closing: false) }
        guard phase == .running else { return }
        while !acceptedTail.isEmpty {
            let accepted = acceptedTail.removeFirst()
            let arrival = Arrival(connection: connection, ordinal: accepted.ordinal)
            emit(.remember(arrival, accepted.notification.resendKey, accepted.answer))
        }
        end(rememberingFrom: 0, report: nil)
    }
}
