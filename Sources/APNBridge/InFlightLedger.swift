/// The process-wide bound on notifications held unsettled (`--max-in-flight`, #42), as a
/// pure ledger: which connection may read how many more, and whom to wake when room
/// comes back. ``InFlightBudget`` runs it under a lock and raises the wakers it names.
///
/// What is counted (``used``) is what the sessions hold: every notification read and not
/// yet settled — in a session's window or awaited after its connection ended
/// (``BridgeSession/unsettled``). What is promised (``reserved``) is what connections may
/// still read: a connection reserves before it decodes, reads at most that many, and
/// gives back what it did not use. `used + reserved` never passes the limit, so the memory
/// the sessions hold is bounded whatever the number of connections.
///
/// Fair at the cap: a connection that finds no room joins a queue and is served in turn,
/// at most its share (the limit over the connections) at a time, so a fast client cannot
/// take the room a slow one is waiting for; and room is handed out only in chunks (at
/// least ``threshold``), so an answer at a time does not wake a connection a time.
package struct InFlightLedger: Sendable {
    /// A connection of the ledger.
    package typealias Ticket = UInt64

    /// The most notifications held at once; nil: no bound (counted only).
    package private(set) var limit: Int?
    /// The most one grant may be (the connection's batch).
    package let grantLimit: Int
    /// Notifications the sessions hold unsettled.
    package private(set) var used = 0
    /// Room promised to connections that may read now.
    package private(set) var reserved = 0
    /// The most ``used`` has been.
    package private(set) var peak = 0
    /// How many times a connection found no room and waited.
    package private(set) var pauses = 0
    private var members = 0
    private var nextTicket: Ticket = 0
    /// Waiting connections in arrival order; one that left is skipped when reached.
    private var queue = FIFO<Ticket>()
    private var queued: Set<Ticket> = []
    /// Room handed to a waiting connection and not yet taken by it.
    private var granted: [Ticket: Int] = [:]

    /// A ledger bounded by `limit` (nil: unbounded), granting at most `grantLimit` at once.
    package init(limit: Int?, grantLimit: Int) {
        precondition(limit.map { $0 > 0 } ?? true && grantLimit > 0)
        self.limit = limit
        self.grantLimit = grantLimit
    }

    /// Connections waiting for room.
    package var waiting: Int { queued.count }

    /// What is neither held nor promised.
    private var room: Int { limit.map { max(0, $0 - used - reserved) } ?? .max }

    /// A connection's share at the cap: the limit over the connections.
    private var share: Int {
        guard let limit else { return grantLimit }
        return max(1, min(grantLimit, limit / max(1, members)))
    }

    /// The least room worth a wake-up: a share, or an eighth of the limit if less.
    private var threshold: Int {
        guard let limit else { return 1 }
        return max(1, min(share, limit / 8))
    }

    /// A new connection's ticket.
    package mutating func join() -> Ticket {
        members += 1
        nextTicket += 1
        return nextTicket
    }

    /// How many notifications `ticket` may read now (at most `want`): 0 means wait for a
    /// wake-up (the ticket is queued). Give back what is not used with ``release(_:)``.
    package mutating func reserve(_ ticket: Ticket, want: Int) -> Int {
        if let grant = granted.removeValue(forKey: ticket) {
            // Promised when it was woken; any excess over `want` goes back.
            let kept = min(grant, want)
            reserved -= grant - kept
            return kept
        }
        if queued.contains(ticket) { return 0 }
        // Nobody jumps the queue: with connections waiting, a newcomer waits behind them.
        if queue.isEmpty, room > 0 {
            let grant = min(want, room, share)
            reserved += grant
            return grant
        }
        queue.append(ticket)
        queued.insert(ticket)
        pauses += 1
        return 0
    }

    /// Gives back `count` of a reservation; returns the tickets to wake.
    package mutating func release(_ count: Int) -> [Ticket] {
        reserved -= count
        return handOut()
    }

    /// The sessions hold `delta` more (or fewer) notifications; returns the tickets to wake.
    package mutating func adjust(by delta: Int) -> [Ticket] {
        used += delta
        peak = max(peak, used)
        return delta < 0 ? handOut() : []
    }

    /// `ticket`'s connection closed: its promise goes back; returns the tickets to wake.
    package mutating func leave(_ ticket: Ticket) -> [Ticket] {
        members -= 1
        if let grant = granted.removeValue(forKey: ticket) { reserved -= grant }
        queued.remove(ticket)
        return handOut()
    }

    /// A new limit (a reload); returns the tickets to wake.
    package mutating func setLimit(_ limit: Int?) -> [Ticket] {
        precondition(limit.map { $0 > 0 } ?? true)
        self.limit = limit
        return handOut()
    }

    /// Hands room to waiting connections in turn, a share each, while a chunk is free.
    private mutating func handOut() -> [Ticket] {
        var woken: [Ticket] = []
        while !queue.isEmpty, room >= threshold {
            let ticket = queue.removeFirst()
            guard queued.remove(ticket) != nil else { continue }  // it left
            let grant = min(room, share)
            reserved += grant
            granted[ticket] = grant
            woken.append(ticket)
        }
        return woken
    }
}
