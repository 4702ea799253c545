import APNWire
import APNGatewayServer

/// The bridge's decisions for one client connection, on its thread: copies what the
/// decoder holds out of its buffer, hands it to the tenant's session in one batch (one
/// lock, one `forward` per read), and follows what the session decided — read on, wait
/// for answers (the waker rises when they change something), or end. Before it decodes,
/// it reserves room in the process's budget (`--max-in-flight`), and decodes no more
/// than it got; with none, it waits for its turn (the waker rises then too).
struct BridgeConnectionHandler: BinaryConnectionHandler {
    let tenant: TenantBridge
    let number: UInt64
    let waker: ConnectionWaker?
    let budget: InFlightBudget
    let ticket: InFlightLedger.Ticket
    /// Whether the last read found no room in the budget: a collection's quiet period
    /// starts again when it reads on, since the client was not read meanwhile.
    private var waitedForRoom = false
    /// The last gate said wait (the window, the journal, a collection elsewhere).
    private var waitedAtGate = false
    /// When the collection after an error response began, and when the client last
    /// wrote since: the read's deadline is the quiet period after that, at most
    /// ``longestCollection`` after the start.
    private var collection: (began: ContinuousClock.Instant, lastArrival: ContinuousClock.Instant)?

    /// The longest a collection lasts, however the client trickles.
    static let longestCollection: Duration = .seconds(30)

    init(tenant: TenantBridge, number: UInt64, waker: ConnectionWaker?, budget: InFlightBudget, ticket: InFlightLedger.Ticket) {
        self.tenant = tenant
        self.number = number
        self.waker = waker
        self.budget = budget
        self.ticket = ticket
    }

    /// The most notifications handed over in one batch: a read of a fast client can hold
    /// thousands, and the window is checked only between batches.
    static let batchLimit = 512

    /// Follows the session's decision; while it reads, hands over what is decodable.
    mutating func consume(_ decoder: inout GatewayDecoder, now: ContinuousClock.Instant) -> ReadDirective {
        let gate = tenant.gate(number)
        if let directive = notReading(gate, now: now) { return directive }
        let room = budget.reserve(ticket, want: Self.batchLimit)
        guard room > 0 else {
            waitedForRoom = true
            return .pause(until: nil)
        }
        // A wait (for room, or for the journal) is not the client's silence.
        if waitedForRoom || waitedAtGate, collection != nil { collection?.lastArrival = now }
        waitedForRoom = false
        waitedAtGate = false
        // Given back once the session holds what was decoded (counted then).
        defer { budget.release(room) }
        let (decoded, more) = Self.decode(&decoder, atMost: room)
        if !decoded.isEmpty, collection != nil { collection?.lastArrival = now }
        let next = decoded.isEmpty ? gate : tenant.receive(number, decoded)
        if let directive = notReading(next, now: now) { return directive }
        // More may be decodable already: asked again at once.
        if more { return .pause(until: now) }
        guard case .collecting = next else { return .read }
        let (began, lastArrival) = collection ?? (now, now)
        return .readUntil(min(lastArrival + tenant.quietPeriod, began + Self.longestCollection))
    }

    /// What the connection does for `gate` when it is not to read on (an end, a wait, an
    /// error response to write); nil when it reads (open, or collecting).
    private mutating func notReading(_ gate: TenantBridge.Gate, now: ContinuousClock.Instant) -> ReadDirective? {
        switch gate {
        case .end(let end): return ending(end)
        case .waiting:
            waitedAtGate = true
            return .pause(until: nil)
        case .held(let until): return .pause(until: until)
        case .reply(let reply):
            collection = (now, now)
            tenant.awaitRecordWritten()
            return .write(reply)
        case .open, .collecting: return nil
        }
    }

    /// At most `limit` of what `decoder` holds, copied out of its buffer, up to and with the
    /// first frame it refuses; and whether more may be decodable.
    private static func decode(_ decoder: inout GatewayDecoder, atMost limit: Int) -> ([TenantBridge.Decoded], Bool) {
        var decoded: [TenantBridge.Decoded] = []
        while decoded.count < limit {
            var copied: BridgedNotification?
            // The view is valid only inside the closure: copy it out.
            switch decoder.next({ copied = BridgedNotification($0) }) {
            case nil:
                return (decoded, false)
            case .notification:
                if let copied { decoded.append(.notification(copied)) }
            case .rejected(let rejection):
                decoded.append(.rejected(rejection))
                return (decoded, false)
            case .unknownCommand:
                decoded.append(.unknownCommand)
                return (decoded, false)
            }
        }
        return (decoded, true)
    }

    /// Ends the connection so; a client about to be told where to resend from (an error
    /// response, or a close that makes it resend) first waits for the record to be stored.
    private func ending(_ end: ConnectionEnd) -> ReadDirective {
        if case .abandon = end {} else { tenant.awaitRecordWritten() }
        return .end(end)
    }

    /// The client finished: an end already decided is still taken; otherwise the session
    /// remembers what it forwarded (rule 6) and the connection closes.
    mutating func inputEnded(now: ContinuousClock.Instant) -> ReadDirective {
        switch tenant.clientFinished(number) {
        case .end(let end): ending(end)
        case .open, .waiting, .held, .reply, .collecting: .end(.abandon)
        }
    }

    /// The socket is closed: the session stays with the tenant until `finished`.
    mutating func closed() {
        tenant.closed(number)
        budget.leave(ticket)
    }
}
