import APN
import APNWire
import Testing

/// Drives a `ConnectionPool` by hand for table-style tests, as ``SessionHarness`` drives a
/// session: notification `n` has the tag, token and payload the session harness gives it,
/// sockets are slots the test opens, writes, answers and closes, and time moves only by
/// ``advance(_:)``. Every input is followed by the end of a turn, as the driver's loop
/// does after each batch. Every action is recorded; outcomes are checked to be unique.
/// A class, so that `#expect` can read its properties (the pool itself is noncopyable).
final class PoolHarness {
    var pool: ConnectionPool<SessionHarness.Tag>
    var now = Timestamp.zero
    /// The attempt each slot's pending `connect` quoted.
    var attempts: [Int: Int] = [:]
    /// Slots asked to connect, in order (a slot once per attempt).
    var connects: [Int] = []
    /// Slots whose socket is open.
    var open: Set<Int> = []
    /// Slots the pool closed, in order.
    var closes: [Int] = []
    /// Slots whose outbound buffer holds bytes (`write`).
    var writable: Set<Int> = []
    var timers: [Int: Timestamp] = [:]
    /// Slots whose acknowledgements are to be watched.
    var watched: Set<Int> = []
    /// Per slot, the gateway's view of the current connection's byte stream.
    var gateways: [Int: GatewayDecoder] = [:]
    /// Per slot, bytes the socket took on the current connection.
    var taken: [Int: Int64] = [:]
    var outcomes: [Int: NotificationOutcome] = [:]
    var duplicateOutcomes: [Int] = []
    /// Event names as the session harness gives them, and `connected(2)` / `disconnected(1)`
    /// with the open sockets the pool counted.
    var events: [String] = []
    var callbacks: [(code: ErrorCallbackCode, tag: Int?)] = []
    /// Replies by id, as answered.
    var replies: [ReplyID: PoolReport<SessionHarness.Tag>] = [:]
    var replyOrder: [ReplyID] = []
    var woken: [ReplyID] = []
    var eventsEnded = false
    var stopped = false
    var nextReply = 0

    init(_ configure: (inout PoolConfiguration) -> Void = { _ in }) {
        var configuration = PoolConfiguration()
        // As every connection's sessions do: acceptance by grace window waits for the
        // peer's acknowledgement (``acknowledge(_:)``).
        configuration.session.tracksAcknowledgements = true
        configure(&configuration)
        pool = ConnectionPool<SessionHarness.Tag>(configuration: configuration)
    }

    /// A pool of two sockets, both open, each having written one notification: 1 on slot 0
    /// (identifier 1), 2 on slot 1 (identifier 1).
    static func twoSocketsWritten() -> PoolHarness {
        let h = PoolHarness { $0.maxConnections = 2 }
        h.push(1...2)
        h.opened(0)
        h.opened(1)
        #expect(h.write(0) == [1] && h.write(1) == [2])
        return h
    }

    /// Performs what the pool asked, then ends the turn and performs what that asked.
    func drain() {
        perform()
        pool.endOfTurn(now: now)
        perform()
    }

    private func perform() {
        while let action = pool.nextAction() {
            switch action {
            case .connect(let slot, let attempt):
                #expect(!open.contains(slot), "slot \(slot) asked to connect while open")
                attempts[slot] = attempt
                connects.append(slot)
            case .write(let slot):
                #expect(open.contains(slot), "write for slot \(slot) with no socket")
                writable.insert(slot)
            case .close(let slot, _):
                #expect(open.contains(slot), "close for slot \(slot) with no socket")
                open.remove(slot)
                writable.remove(slot)
                closes.append(slot)
            case .scheduleTimer(let slot, let at): timers[slot] = at
            case .watchAcknowledgements(let slot, let on):
                if on { watched.insert(slot) } else { watched.remove(slot) }
            case .connected(let count): events.append("connected(\(count))")
            case .disconnected(let count): events.append("disconnected(\(count))")
            case .event(let event): events.append(SessionHarness.name(of: event))
            case .errorCallback(let code, let tag): callbacks.append((code, SessionHarness.number(tag)))
            case .outcome(let handle, let outcome):
                let tag = SessionHarness.number(handle)!
                if outcomes[tag] != nil { duplicateOutcomes.append(tag) }
                outcomes[tag] = outcome
            case .reply(let id, let report):
                #expect(replies[id] == nil, "reply \(id) answered twice")
                replies[id] = report
                replyOrder.append(id)
            case .wake(let id): woken.append(id)
            case .endEvents: eventsEnded = true
            case .stop: stopped = true
            }
        }
    }

    // MARK: inputs from the caller

    func push(_ tags: ClosedRange<Int>, retryLimit: Int = -1) {
        for tag in tags {
            pool.push(
                SessionHarness.handle(tag), token: SessionHarness.token(tag), payload: SessionHarness.payload(tag),
                expiry: 0, priority: 10, retryLimit: retryLimit, now: now)
        }
        drain()
    }

    func refuse(_ tag: Int, _ error: APNError) {
        pool.refuse(SessionHarness.handle(tag), error)
        drain()
    }

    @discardableResult
    func flush(confirm: Bool = true) -> ReplyID {
        nextReply += 1
        pool.flush(confirm: confirm, reply: nextReply, now: now)
        drain()
        return nextReply
    }

    @discardableResult
    func shutdown() -> ReplyID {
        nextReply += 1
        pool.shutdown(reply: nextReply, now: now)
        drain()
        return nextReply
    }

    func release() {
        pool.release(now: now)
        drain()
    }

    @discardableResult
    func acknowledgementBarrier() -> ReplyID {
        nextReply += 1
        pool.acknowledgementBarrier(reply: nextReply)
        drain()
        return nextReply
    }

    // MARK: inputs from the sockets

    /// The pending attempt of `slot` connected.
    func opened(_ slot: Int) {
        guard let attempt = attempts.removeValue(forKey: slot) else {
            Issue.record("slot \(slot) has no connect pending")
            return
        }
        let adopted = pool.socketOpened(slot: slot, attempt: attempt, now: now)
        #expect(adopted, "the pool gave attempt \(attempt) of slot \(slot) up")
        open.insert(slot)
        gateways[slot] = GatewayDecoder()
        taken[slot] = 0
        drain()
    }

    /// The pending attempt of `slot` failed.
    func failed(_ slot: Int, _ error: APNError = APNError(code: .connectionFailed, message: "refused")) {
        guard let attempt = attempts.removeValue(forKey: slot) else {
            Issue.record("slot \(slot) has no connect pending")
            return
        }
        pool.socketFailed(slot: slot, attempt: attempt, error: error, now: now)
        drain()
    }

    /// The socket of `slot` takes everything encoded; returns the tags of the frames it took
    /// (a marker is -1), decoded by the gateway-side decoder.
    @discardableResult
    func write(_ slot: Int) -> [Int] {
        let bytes = pool.withOutboundBytes(slot) { Array($0) }
        writable.remove(slot)
        guard !bytes.isEmpty else { return [] }
        taken[slot, default: 0] += Int64(bytes.count)
        pool.bytesWritten(slot: slot, count: bytes.count, now: now)
        drain()
        gateways[slot, default: GatewayDecoder()].feed(bytes)
        var frames: [Int] = []
        while let message = gateways[slot]?.next() {
            switch message {
            case .notification(let note): frames.append(SessionHarness.tag(of: note.token))
            case .rejected:
                // A marker; the gateway would close here, the harness reads on.
                frames.append(-1)
                gateways[slot] = GatewayDecoder()
            case .unknownCommand: Issue.record("the pool wrote an unknown command")
            }
        }
        return frames
    }

    func respond(_ slot: Int, _ status: StatusCode, _ identifier: UInt32) {
        var buffer = WireBuffer()
        buffer.writeErrorResponse(status: status, identifier: identifier)
        pool.bytesReceived(slot: slot, buffer.readableBytesArray, now: now)
        drain()
    }

    /// The peer's TCP acknowledged everything `slot`'s socket took.
    func acknowledge(_ slot: Int) {
        pool.acknowledged(slot: slot, bytes: taken[slot] ?? 0, now: now)
        drain()
    }

    /// The socket of `slot` ended on its own.
    func closed(_ slot: Int, _ error: APNError? = nil) {
        open.remove(slot)
        writable.remove(slot)
        pool.socketClosed(slot: slot, error: error, now: now)
        drain()
    }

    /// Time moves on; the slots whose timers are due tick, earliest first.
    func advance(_ seconds: Double) {
        now = now + .milliseconds(Int64(seconds * 1000))
        while let (slot, _) = timers.filter({ $0.value <= now }).min(by: { $0.value < $1.value }) {
            timers[slot] = nil
            pool.tick(slot: slot, now: now)
            drain()
        }
    }

    // MARK: queries

    func outcome(_ tag: Int) -> NotificationOutcome? { outcomes[tag] }

    /// The error code of a `failed` outcome.
    func failureCode(_ tag: Int) -> APNError.Code? {
        if case .failed(let error)? = outcomes[tag] { error.code } else { nil }
    }

    /// Event names without the per-notification `transmitted`.
    var milestones: [String] { events.filter { !$0.hasPrefix("transmitted") } }
}
