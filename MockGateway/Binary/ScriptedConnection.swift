import APNTLS
import APNWire
import APNGatewayServer

/// The mock's decisions for one gateway connection: every notification one read brought
/// is judged against the faults and recorded under one lock (``Ledger/judgeDecoded(from:connection:ordinal:limit:)``),
/// and the verdict becomes what the server core does next. Under
/// ``MockGateway/Faults/latency`` the core holds the bytes read that long first; under
/// ``MockGateway/Faults/readRate`` judging waits for tokens, reading nothing meanwhile.
struct ScriptedConnection: BinaryConnectionHandler {
    let shared: SharedState
    /// The connection's number (``MockGateway/Record/connection``).
    let number: Int
    /// The number of the last notification decoded on this connection.
    private var ordinal = 0
    private var pacer = Pacer()
    /// The rejection whose error response ends the connection, once decided.
    private var rejection: Int?
    /// The read stall in force, once one struck: every look before its deadline finds it.
    private var stall: ReadStall?

    /// Numbers the connection in the ledger (``MockGateway/connectionCount``,
    /// ``MockGateway/openConnectionCount``).
    init(shared: SharedState) {
        self.shared = shared
        number = shared.update { $0.openConnection() }
    }

    mutating func inputLatency() -> Duration {
        pacer.refresh(from: shared)
        return pacer.latency
    }

    mutating func consume(_ decoder: inout GatewayDecoder, now: ContinuousClock.Instant) -> ReadDirective {
        if let stall {
            // Asked again while stalled (the pause ended, or something woke it early):
            // neither judge nor read before the deadline, then end as the stall says.
            switch stall.step(at: now) {
            case .wait(let deadline): return .pause(until: deadline)
            case .end(let end): return .end(end)
            case .resume: self.stall = nil
            }
        }
        // Faults changed during a long read apply to what it brought.
        pacer.refresh(from: shared)
        var limit = Int.max
        if let bucket = pacer.bucket {
            limit = bucket.available(at: now)
            // No budget: neither judge nor read until a token comes, so the kernel's
            // buffers fill and the client's writes block.
            guard limit > 0 else { return .pause(until: bucket.nextToken(after: now)) }
        }
        let number = number
        var ordinal = ordinal
        var rejection: Int?
        let verdict = shared.update { ledger in
            let rejectionsBefore = ledger.rejections.count
            let verdict = ledger.judgeDecoded(from: &decoder, connection: number, ordinal: &ordinal, limit: limit)
            // A marker's answer is not a rejection: nothing to note the discarded count on.
            if case .end(.errorResponse) = verdict, ledger.rejections.count > rejectionsBefore {
                rejection = ledger.rejections.count - 1
            }
            return verdict
        }
        pacer.spend(ordinal - self.ordinal)
        self.ordinal = ordinal
        switch verdict {
        case .goOn:
            return .read
        case .limitReached:
            // More may be decodable: judged as soon as the budget allows.
            return .pause(until: now)
        case .recordsFull:
            // Neither judge nor read until records are released: TCP's backpressure
            // reaches the client, and memory stays bounded. A condition wait on the
            // ledger, which the stop ends; the core's loop finds the stop next.
            guard shared.waitForRecordRoom() else { return .end(.abandon) }
            return .pause(until: now)
        case .stall(let fault):
            // Stalled reads: neither the socket nor the decoder is read meanwhile. The
            // pause ends at the deadline (at once for a zero duration, `nil` for `never`:
            // only the stop), and the next call finds the stall above.
            let stall = ReadStall(fault, now: now)
            self.stall = stall
            return .pause(until: stall.deadline)
        case .end(let end):
            self.rejection = rejection
            return .end(end)
        }
    }

    /// The client left: close without a word, as Apple's gateway had nothing to say.
    mutating func inputEnded(now: ContinuousClock.Instant) -> ReadDirective {
        .end(.abandon)
    }

    mutating func discardedBeforeAnswer(_ count: Int) {
        guard let rejection else { return }
        shared.update { $0.noteDiscarded(count, afterRejection: rejection) }
    }

    mutating func closed() {
        shared.update { $0.closeConnection() }
    }
}

/// The mock's policy: every connection gets a ``ScriptedConnection``, whatever its
/// certificate (the handshake has checked it).
struct ScriptedGateway: BinaryGatewayPolicy {
    let shared: SharedState

    func open(peer: TLSCertificate?) -> ScriptedConnection? {
        ScriptedConnection(shared: shared)
    }
}

/// The mock's feedback: each connection is served the whole queue, which is then gone,
/// as Apple's feedback service forgot what it had served (so nothing to settle).
struct QueuedFeedback: FeedbackSource {
    let shared: SharedState

    func take(for peer: TLSCertificate?) -> (batch: FeedbackBatch, receipt: Void)? {
        (shared.update { $0.takeFeedback() }, ())
    }
}
