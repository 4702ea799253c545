import APNSupport
@_spi(APNBridge) import APN
@_spi(APNBridge) import APNCore
import APNFeedbackStore
import APNWire
import Foundation
import Synchronization
import APNGatewayServer

/// All of one tenant's bridge state, under one lock: its resend record, its upstream
/// backoff, and the sessions of its connections by number (never reused), each with what
/// its connection is to do next. Connection threads feed it what they decode; the
/// provider's I/O thread feeds it answers (``answered(_:_:_:)``). Every input is followed
/// by draining the session's actions (the contract in ``BridgeSession``), and relays from
/// the record go to the sessions they name, under the same lock, so the record and the
/// sessions never disagree.
///
/// Nothing slow happens under the lock: forwarding, queueing feedback and raising wakers
/// are done after it is released, from the ``Effects`` collected.
final class TenantBridge: Sendable, JournalSource {
    let tenant: BridgeTenant
    let provider: Provider
    private let outbox: FeedbackOutbox
    private let server: ServerState
    private let origin: ContinuousClock.Instant
    private let window: Int
    /// How long a client sent an error response may write nothing before the collection
    /// after it ends (``Bridge/Configuration/collectionQuietPeriod``).
    let quietPeriod: Duration
    private let log: @Sendable (BridgeEvent) -> Void
    private let state: Lock<State>
    /// How the record's changes become store rows (``FeedbackOutbox/queueResendChanges(_:)``);
    /// nil when the record lives in memory only.
    private let recordRows: ResendRecordRows?
    /// The journal's seqs, with a journal (``State/journal``).
    private let sequence: JournalSequence?
    /// What every connection of the process may hold: the sessions' holdings go to it.
    let budget: InFlightBudget
    /// Whether the upstream takes a connection (readiness).
    let reachability: UpstreamReachability

    /// The connection number of the notifications a starting bridge forwards for an
    /// earlier one (``adopt(_:)``): no session; their answers settle the record.
    static let recoveredConnection = UInt64.max - 1

    /// Another bridge's record row: its key in the store.
    struct PeerRow: Hashable {
        let instance: Int64
        let serial: Int64
    }

    /// What a connection thread is to do next.
    enum Gate {
        /// Decode and hand over more.
        case open
        /// Read nothing until the waker rises (paused at the window, or stopped reading
        /// with the answer still to come).
        case waiting
        /// Read nothing until this instant (or the waker): the tenant's upstream is backing
        /// off after a failure, so nothing is forwarded meanwhile; the client's writes wait
        /// in TCP, and nothing it wrote is lost to a close.
        case held(until: ContinuousClock.Instant)
        /// Write this error response now and go on reading: the session collects what the
        /// client wrote after the refused notification (rule 9 of ``BridgeSession``).
        case reply(ErrorReply)
        /// Decode and hand over more, collecting after an error response: until the client
        /// closes or goes quiet.
        case collecting
        /// End the connection so.
        case end(ConnectionEnd)
    }

    /// One thing a connection decoded, copied out of the decoder's buffer.
    enum Decoded {
        /// A valid notification, copied.
        case notification(BridgedNotification)
        /// A frame the decoder refused (Apple's validation): a local refusal.
        case rejected(Rejection)
        /// A command byte that is not 0, 1 or 2.
        case unknownCommand
    }

    /// One connection's session and what its thread is to do next.
    ///
    /// A class: `feed` works on the session in place through the reference. As a struct it
    /// was taken out of the dictionary and put back for every answer, and the compiler
    /// copied it back in and destroyed the local (~850 instructions a notification: a
    /// retain and a release of each of the session's buffers; `consume` is refused by this
    /// compiler here). `@unchecked Sendable`: touched only under the tenant's lock (a forward
    /// target carries a reference to the provider and back, read only in `feed`, under the
    /// lock; its deinit has it alone).
    private final class Entry: @unchecked Sendable {
        // `@exclusivity(unchecked)`: read and written only under the tenant's lock, and
        // `feed` (the one place that lends them `inout`) hands its closure nothing else of
        // the entry; unchecked, they cost no runtime access tracking, which cost about 400
        // instructions a forwarded notification (#45).
        @exclusivity(unchecked) var session: BridgeSession
        let waker: WakeSignal?
        /// Whether the client connection is still open (its handler not yet closed).
        @exclusivity(unchecked) var live = true
        @exclusivity(unchecked) var reading = Reading.open
        /// The end the session decided (error response then close, or close alone).
        var end: ConnectionEnd?
        /// An error response decided with no close after it: written at once, the
        /// connection read on (``Gate/reply(_:)``).
        var reply: ErrorReply?
        /// Opened while another connection of the tenant was collecting after an error
        /// response: read nothing until every collection ended (``State/collecting``).
        var heldForCollection = false
        var finished = false
        /// Taken out of the tenant's entries: an answer for it, found through a forward
        /// target's reference, is dropped as one for a number no longer there is.
        var removed = false

        init(session: BridgeSession, waker: WakeSignal?, heldForCollection: Bool) {
            self.session = session
            self.waker = waker
            self.heldForCollection = heldForCollection
        }

        deinit {
            session.discardQueues()
        }
    }

    /// Whether the connection's thread may decode, as the session's actions said.
    private enum Reading {
        /// Decode and hand over.
        case open
        /// At the window (`pauseReading`) until `resumeReading`.
        case paused
        /// `stopReading`: never again.
        case stopped
    }

    /// Everything the lock guards.
    private struct State {
        var record: ResendRecord
        /// Tokens the upstream answered BadDeviceToken for, refused at once (rule 10).
        var badTokens = KnownBadTokens()
        var backoff = UpstreamBackoff()
        /// Why the upstream last failed (Apple's reason or the provider's error), while it
        /// has not answered a notification since: what ``upstreamFailure`` tells.
        var lastFailure: String?
        var entries: [UInt64: Entry] = [:]
        var nextConnection: UInt64 = 0
        /// Connections collecting after an error response (rule 9 of ``BridgeSession``).
        /// While any does, a new connection is held: a client that closed the collecting
        /// one at the response and resends on a new one would otherwise race what is still
        /// being collected from the old, and the two copies would both go upstream.
        var collecting: Set<UInt64> = []
        var counts = BridgeCounts()
        /// What the connections read, from the read to the answer, with `--store` (#41).
        var journal: ForwardJournal?
        /// The tokens of adopted notifications not yet answered, by ordinal: a 410 queues feedback.
        var recoveredTokens: [Int: [UInt8]] = [:]
        var nextRecoveredOrdinal = 0
        /// The stop's grace is over (``withdrawJournal()``): what is withdrawn is left to the next bridge.
        var stopping = false
        /// Connections waiting for a group commit: the journal held its limit of notifications
        /// not yet in the store (``ForwardJournal/isFull``) when they would have read.
        var waitingForJournal: Set<UInt64> = []
        /// The bridge lost its store (``abandon()``): nothing more is read, ever.
        var abandoned = false
        /// Other bridges' record rows loaded already, and when the last load was (UNIX ms).
        var peerRows: Set<PeerRow> = []
        var peersLoadedAt: Int64 = 0
    }

    /// One notification to hand to the provider, and where its answer goes.
    ///
    /// A struct, not a tuple: the arrays of these are copied from and destroyed once a
    /// notification, and a tuple's element went through the runtime's generic tuple value
    /// witnesses each time (about 2,000 instructions a notification).
    private struct ForwardTarget {
        let connection: UInt64
        /// The connection's entry, when the target was made with it at hand: its answer
        /// goes to the session without a look-up by number (~140 instructions).
        var entry: Entry? = nil
        let ordinal: Int
        let notification: BridgedNotification
        /// Its journal seq, with a journal.
        let seq: Int64?
    }

    /// What to do once the lock is released.
    private struct Effects {
        var forwards: [ForwardTarget] = []
        var feedback: [BridgeStateStore.QueuedFeedback] = []
        var wakers: [WakeSignal] = []
        var events: [BridgeEvent] = []
        /// The record's changes, for the store.
        var recordChanges: [ResendRecord.Change] = []
        /// The journal has work for the store's writer.
        var journalWake = false
        /// A connection closed, an end was decided or a session finished: the stop waits
        /// for these, so its waiters are woken even when it did not count itself.
        var changed = false
        /// How many more (or fewer) notifications the sessions hold: for the budget.
        var held = 0
    }

    /// The state of `tenant`, forwarding through `provider`, its 410s to `outbox`; times
    /// are counted from `origin`; `server` is woken when a stop may be waiting; `log`
    /// hears of connections, error responses and upstream failures.
    init(
        tenant: BridgeTenant, provider: Provider, outbox: FeedbackOutbox, server: ServerState,
        origin: ContinuousClock.Instant, window: Int, record: ResendRecord,
        quietPeriod: Duration = Bridge.Configuration.defaultCollectionQuietPeriod, recordRows: ResendRecordRows? = nil,
        journal: (ForwardJournal, JournalSequence)? = nil, budget: InFlightBudget = InFlightBudget(limit: nil),
        log: @escaping @Sendable (BridgeEvent) -> Void = { _ in }
    ) {
        self.budget = budget
        reachability = UpstreamReachability(provider: provider)
        self.recordRows = recordRows
        self.sequence = journal?.1
        self.log = log
        self.quietPeriod = quietPeriod
        self.tenant = tenant
        self.provider = provider
        self.outbox = outbox
        self.server = server
        self.origin = origin
        self.window = window
        var initial = State(record: record)
        initial.journal = journal?.0
        state = Lock(initial)
    }

    /// The record's and the backoff's time: elapsed since the bridge was made.
    private var now: Duration { ContinuousClock.now - origin }

    /// What the tenant's sessions did so far.
    var counts: BridgeCounts { state.withLock { $0.counts } }

    /// Client connections whose handler has not closed yet.
    var liveCount: Int { state.withLock { $0.entries.values.count { $0.live } } }

    /// Sessions still awaiting answers: live connections with no end decided yet, and
    /// connections their clients closed whose forwarded notifications are not all answered
    /// (such a client was told nothing more, so what the stop withdraws from it is lost).
    var unfinishedCount: Int { state.withLock { $0.entries.values.count { !$0.finished } } }

    /// Why the upstream failed, while it fails: its last failure (a refused provider token,
    /// an unreachable host, Apple unavailable after retries), until it accepts a
    /// notification again; nil while it works (or nothing was sent yet).
    var upstreamFailure: String? {
        state.withLock { $0.backoff.failures > 0 ? $0.lastFailure : nil }
    }

    /// Sessions kept: live connections and closed ones still awaiting answers.
    var sessionCount: Int { state.withLock { $0.entries.count } }

    // MARK: connections

    /// A session for a new connection. While the upstream backs off, the connection is
    /// held (``Gate/held(until:)``) rather than closed: a client writes as soon as its
    /// handshake is done, and a close would leave what it wrote of unknown fate.
    func open(waker: WakeSignal?) -> UInt64 {
        loadPeerEntries()
        let now = now
        let (number, held) = state.withLock { state -> (UInt64, Duration?) in
            let number = state.nextConnection
            state.nextConnection += 1
            state.entries[number] = Entry(
                session: BridgeSession(connection: number, window: window), waker: waker,
                heldForCollection: !state.collecting.isEmpty)
            state.counts.connections += 1
            guard let until = state.backoff.holding(at: now) else { return (number, nil) }
            state.counts.heldConnections += 1
            return (number, until - now)
        }
        log(.connectionOpened(tenant: tenant.name, connection: number))
        if let held { log(.connectionHeld(tenant: tenant.name, connection: number, for: held)) }
        return number
    }

    /// What connection `number` is to do now.
    func gate(_ number: UInt64) -> Gate {
        let now = now
        return state.withLock { gate(&$0, number, now: now) }
    }

    /// Feeds what connection `number` decoded to its session, forwards what it asks to,
    /// and says what the connection does next.
    func receive(_ number: UInt64, _ decoded: [Decoded]) -> Gate {
        let now = now
        var effects = Effects()
        let next = state.withLock { state in
            let badTokens = state.badTokens
            feed(&state, number, &effects, now: now) { session, record, counts in
                for item in decoded {
                    switch item {
                    case .notification(let notification):
                        // A resend the record holds is answered from it (its refusal was
                        // counted when the upstream gave it), not as a known bad token.
                        var known = badTokens.refusal(for: notification.token, now: now)
                        if known != nil, record.count(of: notification.resendKey) > 0 { known = nil }
                        guard session.received(notification, record: &record, now: now, knownRefusal: known) != nil else {
                            continue
                        }
                        counts.received += 1
                        if let known {
                            counts.refused[known, default: 0] += 1
                            counts.refusedKnownBad += 1
                        }
                    case .rejected(let rejection):
                        session.locallyRefused(rejection.status, identifier: rejection.identifier ?? 0, command: rejection.command)
                        counts.refused[rejection.status, default: 0] += 1
                    case .unknownCommand:
                        session.unknownCommand()
                    }
                }
            }
            return gate(&state, number, now: now)
        }
        perform(effects)
        return next
    }

    /// The client finished sending: nothing more is written to it (rule 6). The end
    /// already decided, if any, is still taken.
    func clientFinished(_ number: UInt64) -> Gate {
        var effects = Effects()
        let gate = state.withLock { state in
            if let end = state.entries[number]?.end { return Gate.end(end) }
            feed(&state, number, &effects, now: now) { session, _, _ in session.clientClosed() }
            return .end(.abandon)
        }
        perform(effects)
        return gate
    }

    /// Connection `number`'s socket is closed: its session stays until `finished`.
    func closed(_ number: UInt64) {
        var effects = Effects()
        state.withLock { state in
            state.entries[number]?.live = false
            state.waitingForJournal.remove(number)
            // A no-op for a session already told of the end (its phase is draining).
            feed(&state, number, &effects, now: now) { session, _, _ in session.clientClosed() }
        }
        effects.changed = true
        effects.events.append(.connectionClosed(tenant: tenant.name, connection: number))
        perform(effects)
    }

    /// Waits (at most ``recordWriteLimit``) until the record's changes so far are in the
    /// store: called before a client is told where to resend from, so that the entries
    /// answering its resends outlive this process (#41). At once without a store.
    func awaitRecordWritten() {
        guard recordRows != nil else { return }
        if !outbox.waitWritten(until: .now + Self.recordWriteLimit) { log(.recordNotWritten(tenant: tenant.name)) }
    }

    /// How long a connection waits for the store before telling its client anyway.
    static let recordWriteLimit: Duration = .seconds(5)

    // MARK: answers

    /// The upstream answered connection `number`'s notification `ordinal` (on the
    /// provider's I/O thread: quick, never blocking); `reason` is Apple's reason, or the
    /// provider's error code when Apple said nothing; `took` the seconds from the hand-over
    /// to the answer.
    func answered(
        _ number: UInt64, _ ordinal: Int, _ answer: BridgeAnswer, reason: String? = nil, token: [UInt8]? = nil,
        seq: Int64? = nil, took: Double? = nil
    ) {
        answered(number, nil, ordinal, answer, reason: reason, token: token, seq: seq, took: took)
    }

    /// ``answered(_:_:_:reason:token:seq:took:)`` with connection `number`'s entry, when
    /// the caller holds it.
    private func answered(
        _ number: UInt64, _ known: Entry?, _ ordinal: Int, _ answer: BridgeAnswer, reason: String?, token: [UInt8]?,
        seq: Int64?, took: Double?
    ) {
        let now = now
        var effects = Effects()
        state.withLock { state in
            if let seq { journalAnswered(&state, &effects, number, seq: seq, answer, handed: true) }
            state.counts.count(answer, reason: reason)
            if let took { state.counts.upstreamRequestDuration.observe(took) }
            if reason == ProviderReason.badDeviceToken.rawValue, let token { state.badTokens.insert(token, now: now) }
            switch answer {
            case .bridgeFailure:
                state.lastFailure = reason ?? "unknown"
                let before = state.backoff.refusingUntil
                state.backoff.failed(at: now)
                if let until = state.backoff.refusingUntil, until != before {
                    effects.events.append(
                        .upstreamFailed(tenant: tenant.name, reason: reason ?? "unknown", backoff: until - now))
                }
            case .accepted, .unregistered:
                reachability.answered()
                if state.backoff.failures > 0 { effects.events.append(.upstreamRecovered(tenant: tenant.name)) }
                state.backoff.succeeded()
                state.lastFailure = nil
            case .refused, .maybeDelivered: break
            }
            if number == Self.recoveredConnection {
                settleRecovered(&state, &effects, ordinal, answer, now: now)
            } else {
                feed(&state, number, &effects, now: now, entry: known) { session, _, _ in session.answered(ordinal, answer) }
            }
        }
        perform(effects)
    }

    // MARK: the journal

    /// `seq`'s answer goes to its journal row: what the record keeps, or for a notification
    /// not delivered whether its client was told (it resends) or not (the next bridge
    /// forwards it: a client that closed its connection was told nothing).
    private func journalAnswered(
        _ state: inout State, _ effects: inout Effects, _ number: UInt64, seq: Int64, _ answer: BridgeAnswer, handed: Bool
    ) {
        guard state.journal != nil else { return }
        let code: Int64?
        switch answer.recorded {
        case .accepted?: code = nil  // the answered mark says so
        case let recorded?: code = recorded.storeCode
        case nil:
            // At a stop the next bridge takes this one's state over before any client
            // reconnects, so a resend finds the pending entry it makes for each and is not
            // forwarded twice: everything withdrawn goes to it, and a client that cannot
            // resend (node-apn at its default cache, told status 10 naming a notification it
            // no longer holds) loses nothing. While running, a client told status 10 resends
            // here, so only a client that left is owed a forward by the next bridge.
            let clientGone = number == Self.recoveredConnection || state.entries[number].map { !$0.live } ?? true
            code = state.stopping || clientGone ? ForwardJournal.Code.forwardAgain : ForwardJournal.Code.notDelivered
        }
        if handed {
            state.journal?.answered(seq: seq, code: code)
        } else {
            state.journal?.answeredUnsent(seq: seq, code: code ?? ResendRecord.Answer.accepted.storeCode)
        }
        // Most answers are acceptances that only move the answered mark: the writer is
        // woken when there is something worth a commit.
        if state.journal?.hasWork == true { effects.journalWake = true }
    }

    /// A notification forwarded for an earlier bridge was answered: its record entry
    /// (pending since the start) takes the answer, relayed to a resend that took it.
    private func settleRecovered(
        _ state: inout State, _ effects: inout Effects, _ ordinal: Int, _ answer: BridgeAnswer, now: Duration
    ) {
        let arrival = Arrival(connection: Self.recoveredConnection, ordinal: ordinal)
        if case .unregistered(let since) = answer, let item = state.recoveredTokens.removeValue(forKey: ordinal) {
            effects.feedback.append(
                BridgeStateStore.QueuedFeedback(tenant: tenant.name, device: Device(unvalidated: item), unixTime: UInt32(clamping: since)))
        } else {
            state.recoveredTokens[ordinal] = nil
        }
        let relay = state.record.settle(arrival, with: answer, now: now)
        if state.record.journaling { effects.recordChanges += state.record.takeChanges() }
        if let relay {
            feed(&state, relay.claimant.connection, &effects, now: now) { session, _, _ in
                session.answered(relay.claimant.ordinal, relay.answer)
            }
        }
        effects.changed = true
    }

    /// Takes over what a dead bridge left for this tenant (its rows are already in the store
    /// under this instance, ``Bridge``'s takeover wrote them): its record entries answer
    /// resends; what it read and never wrote gets a pending record entry each — a client's
    /// resend of it is answered when it is — and is sent as credit allows; what it may have
    /// written and saw no answer for is counted.
    func takeOver(_ taken: BridgeStateStore.BridgeTakeOver) {
        let now = now
        var effects = Effects()
        state.withLock { state in
            state.counts.maybeDeliveredBeforeStart += taken.maybeDelivered
            recordRows?.restore(taken.record, into: &state.record) { .stored(serial: UInt64(bitPattern: $0.serial)) }
            var items: [ForwardJournal.Item] = []
            for row in taken.journal {
                let notification = BridgedNotification(
                    command: .frame, identifier: 0, token: row.token, payload: row.payload, expiry: row.expiry,
                    priority: row.priority)
                let ordinal = state.nextRecoveredOrdinal
                state.nextRecoveredOrdinal += 1
                state.record.insert(
                    notification.resendKey, answer: .pending,
                    from: Arrival(connection: Self.recoveredConnection, ordinal: ordinal), now: now)
                state.recoveredTokens[ordinal] = notification.token
                items.append(
                    ForwardJournal.Item(
                        seq: row.seq, connection: Self.recoveredConnection, ordinal: ordinal, notification: notification,
                        readAt: now))
            }
            if state.record.journaling { effects.recordChanges += state.record.takeChanges() }
            state.journal?.adopt(items)
            state.counts.recovered += items.count
            effects.journalWake = !items.isEmpty
            effects.changed = true
        }
        perform(effects)
    }

    /// Loads the record entries other live bridges on the store keep for this tenant,
    /// recorded since the last load: a client told an error response by one of them that
    /// reconnects here (a balancer in front of several) has its resends answered from them.
    /// Called as a connection opens, before it reads.
    private func loadPeerEntries() {
        guard let recordRows else { return }
        let wallNow = recordRows.originMilliseconds + now.wholeMilliseconds
        let since = state.withLock { state in
            // A little before the last load: a row committed just before it may have a
            // recorded_at older than the load's own time.
            max(state.peersLoadedAt - 5_000, wallNow - state.record.retention.wholeMilliseconds)
        }
        guard let rows = try? outbox.peerResendRows(tenant: tenant.name, excluding: recordRows.instance, since: since)
        else { return }
        state.withLock { state in
            state.peersLoadedAt = wallNow
            let new = rows.filter { state.peerRows.insert(PeerRow(instance: $0.instance, serial: $0.serial)).inserted }
            recordRows.restore(new, into: &state.record) { _ in .peer }
            // The keys seen are kept about as long as the record keeps entries.
            if state.peerRows.count > 2 * state.record.capacity + 1_024 { state.peerRows.removeAll() }
        }
    }

    /// The lowest seq read and not answered.
    var lowestUnansweredSeq: Int64? { state.withLock { $0.journal?.lowestUnanswered } }

    /// The store's writer takes this tenant's work for a group commit.
    func takeJournalWork() -> ForwardJournal.Work? {
        state.withLock { $0.journal?.takeWork() }
    }

    /// The group commit holding `work` is in the store: what it marked sent goes to the
    /// provider, and connections that waited for the commit read on.
    func journalCommitted(_ work: ForwardJournal.Work) {
        let wakers = state.withLock { state -> [WakeSignal] in
            state.journal?.committed()
            guard !state.waitingForJournal.isEmpty else { return [] }
            defer { state.waitingForJournal.removeAll() }
            return state.waitingForJournal.compactMap { state.entries[$0]?.waker }
        }
        for waker in wakers { waker.signal() }
        forward(work.sends.map {
            ForwardTarget(connection: $0.connection, ordinal: $0.ordinal, notification: $0.notification, seq: $0.seq)
        })
    }

    /// The bridge lost its store (``Bridge/abandon(grace:)``): no connection reads again.
    /// Returns how many notifications were read and are not known to be in the store —
    /// what the end of this process loses.
    func abandon() -> Int {
        state.withLock { state in
            state.abandoned = true
            return state.journal?.unconfirmedCount ?? 0
        }
    }

    /// Notifications read and not known to be in the store's journal (0 without a store).
    var unjournaledCount: Int { state.withLock { $0.journal?.unconfirmedCount ?? 0 } }

    /// Connections waiting for a group commit to read on.
    var waitingForStoreCount: Int { state.withLock { $0.waitingForJournal.count } }

    /// Notifications handed to the provider and not yet answered.
    var outstandingCount: Int { state.withLock { $0.journal?.withProvider ?? 0 } }

    /// The stop: nothing more of the journal is sent; what was read and never handed is
    /// answered as not delivered — its client is told status 10 — and left for the next
    /// bridge to forward, as is what the provider withdraws after this.
    func withdrawJournal() {
        let now = now
        var effects = Effects()
        state.withLock { state in
            state.stopping = true
            guard let items = state.journal?.withdraw() else { return }
            for item in items {
                journalAnswered(&state, &effects, item.connection, seq: item.seq, .bridgeFailure, handed: false)
                state.counts.count(.bridgeFailure)
                if item.connection == Self.recoveredConnection {
                    // Left for the next bridge (its row says forward again): the record's
                    // pending entry goes, and a resend that took it is told status 10.
                    settleRecovered(&state, &effects, item.ordinal, .bridgeFailure, now: now)
                } else {
                    feed(&state, item.connection, &effects, now: now) { session, _, _ in
                        session.answered(item.ordinal, .bridgeFailure)
                    }
                }
            }
        }
        perform(effects)
    }

    // MARK: stopping

    /// Tells every session the bridge is shutting down; with a journal they read on
    /// through the grace (``BridgeSession/shutdown(readingOn:)``).
    func shutdown() {
        let readingOn = recordRows != nil
        everySession { $0.shutdown(readingOn: readingOn) }
    }

    /// Tells every session the shutdown grace period is over.
    func graceExpired() {
        everySession { $0.graceExpired() }
    }

    private func everySession(_ input: @escaping (inout BridgeSession) -> Void) {
        var effects = Effects()
        state.withLock { state in
            for number in Array(state.entries.keys) {
                feed(&state, number, &effects, now: now) { session, _, _ in input(&session) }
            }
        }
        perform(effects)
    }

    // MARK: the contract

    /// What connection `number` is to do now; an error response to write at once is
    /// handed out once.
    private func gate(_ state: inout State, _ number: UInt64, now: Duration) -> Gate {
        guard let entry = state.entries[number], entry.live else { return .end(.abandon) }
        if let end = entry.end { return .end(end) }
        if let reply = entry.reply {
            state.entries[number]?.reply = nil
            return .reply(reply)
        }
        guard entry.reading == .open, !entry.heldForCollection else { return .waiting }
        // What a crash may lose is bounded: no more is read while the journal holds its
        // limit of notifications not yet in the store (#41), nor once the store is lost.
        if state.abandoned { return .waiting }
        if state.journal?.isFull == true {
            state.waitingForJournal.insert(number)
            return .waiting
        }
        if entry.session.phase == .collecting { return .collecting }
        if let until = state.backoff.holding(at: now) { return .held(until: origin + until) }
        return .open
    }

    /// Gives `number`'s session an input, then performs every action it asks for, in
    /// order; relays go to the sessions they name the same way.
    private func feed(
        _ state: inout State, _ number: UInt64, _ effects: inout Effects, now: Duration, entry known: Entry? = nil,
        _ input: (inout BridgeSession, inout ResendRecord, inout BridgeCounts) -> Void
    ) {
        // Worked on in place (a class): its buffers stay uniquely referenced.
        guard let entry = known ?? state.entries[number], !entry.removed else { return }
        let heldBefore = entry.session.heldCount
        input(&entry.session, &state.record, &state.counts)
        defer { if state.record.journaling { effects.recordChanges += state.record.takeChanges() } }
        var relays: [ResendRecord.Relay] = []
        var visible = false
        while let action = entry.session.nextAction() {
            switch action {
            case .forward(let ordinal, let notification):
                if state.journal != nil, let sequence {
                    state.journal?.read(
                        ForwardJournal.Item(
                            seq: sequence.next(), connection: number, ordinal: ordinal, notification: notification,
                            readAt: now))
                    effects.journalWake = true
                } else {
                    effects.forwards.append(
                        ForwardTarget(connection: number, entry: entry, ordinal: ordinal, notification: notification, seq: nil))
                }
                state.counts.forwarded += 1
            case .queueFeedback(let token, let since):
                effects.feedback.append(
                    BridgeStateStore.QueuedFeedback(
                        tenant: tenant.name, device: Device(unvalidated: token), unixTime: UInt32(clamping: since)))
            case .pauseReading:
                if entry.reading == .open { entry.reading = .paused }
            case .resumeReading:
                if entry.reading == .paused {
                    entry.reading = .open
                    visible = true
                }
            case .stopReading:
                entry.reading = .stopped
            case .remember(let arrival, let key, let answer):
                state.record.insert(key, answer: answer, from: arrival, now: now)
            case .rememberAnswer(let arrival, let answer):
                if let relay = state.record.settle(arrival, with: answer, now: now) { relays.append(relay) }
            case .writeErrorResponse(let status, let identifier):
                entry.reply = ErrorReply(status: status, identifier: identifier)
                if entry.session.phase == .collecting { state.collecting.insert(number) }
                effects.events.append(
                    .errorResponse(tenant: tenant.name, connection: number, status: status, identifier: identifier))
                visible = true
                effects.changed = true
            case .close:
                // An error response not yet written goes out before the close.
                if entry.end == nil { entry.end = entry.reply.map { .errorResponse($0) } ?? .close }
                entry.reply = nil
                visible = true
                effects.changed = true
            case .refusalDistance(let notifications):
                // The collection is over: connections held for it read on once none is left.
                state.collecting.remove(number)
                if state.collecting.isEmpty { releaseHeld(&state, &effects) }
                state.counts.countRefusalDistance(notifications)
                effects.events.append(.refusalDistance(tenant: tenant.name, connection: number, notifications: notifications))
            case .finished:
                entry.finished = true
                effects.changed = true
            }
        }
        if visible, entry.live, let waker = entry.waker { effects.wakers.append(waker) }
        effects.held += entry.session.heldCount - heldBefore
        // A finished session of a live connection stays until the connection closes: its
        // thread still asks for the end.
        if entry.finished && !entry.live {
            entry.removed = true
            state.entries[number] = nil
        }
        for relay in relays {
            feed(&state, relay.claimant.connection, &effects, now: now) { session, _, _ in
                session.answered(relay.claimant.ordinal, relay.answer)
            }
        }
    }

    /// Lets the connections held for a collection read (their wakers raised).
    private func releaseHeld(_ state: inout State, _ effects: inout Effects) {
        for number in Array(state.entries.keys) where state.entries[number]?.heldForCollection == true {
            state.entries[number]?.heldForCollection = false
            if let waker = state.entries[number]?.waker { effects.wakers.append(waker) }
        }
    }

    /// What the lock's holder collected: forwarded in one batch, feedback handed to the
    /// outbox, wakers raised.
    private func perform(_ effects: Effects) {
        // Before the wakers: a connection woken to tell its client where to resend from
        // waits for these to be written (``awaitRecordWritten()``).
        if let recordRows, !effects.recordChanges.isEmpty {
            outbox.queueResendChanges(recordRows.changes(effects.recordChanges))
        }
        if !effects.feedback.isEmpty { outbox.queue(effects.feedback) }
        if effects.journalWake { outbox.wakeJournal() }
        budget.adjust(by: effects.held)
        for waker in effects.wakers { waker.signal() }
        for event in effects.events { log(event) }
        // Cheap when nobody waits (an atomic load): ``Bridge/wait(until:_:)`` and the stop
        // watch the counts and the sessions.
        server.wakeWaiters(always: effects.changed)
        forward(effects.forwards)
    }

    /// Hands `targets` to the provider in one batch; each answer comes back through
    /// ``answered(_:_:_:reason:token:seq:)`` (with its journal seq, if it has one).
    private func forward(_ targets: [ForwardTarget]) {
        guard !targets.isEmpty else { return }
        let handed = MonotonicClock.nanoseconds()
        let topic = tenant.topic, pushType = tenant.pushType
        // Each target's notification read in place through the buffer's addressor (the
        // array's subscript copied the whole target out, and released it, for every one).
        targets.withUnsafeBufferPointer { inPlace in
            provider.forward(count: inPlace.count, { inPlace[$0].notification.forwardedParts(topic: topic, pushType: pushType) }) {
                [self] index, response in
                // A withdrawn request never went upstream: no duration of the upstream's.
                let took = response.error?.code == .shutDown ? nil : MonotonicClock.secondsSince(handed)
                // The target's fields read in place (a copy of it retained and released its
                // notification's buffers).
                answered(
                    targets[index].connection, targets[index].entry, targets[index].ordinal,
                    BridgeAnswer(response, nowSeconds: unixNow()),
                    reason: response.reason?.rawValue ?? response.error?.code.description,
                    token: targets[index].notification.token, seq: targets[index].seq, took: took)
            }
        }
    }
}

/// The wall clock in UNIX seconds: the time of a 410 that carried no timestamp.
private func unixNow() -> Int64 {
    Int64(Date().timeIntervalSince1970)
}
