package import APNWire

/// What one tenant's closed connections forwarded after the point their client was told
/// to resend from, with each one's answer: a multiset keyed by content, so that a resend
/// is answered from here and never forwarded twice.
///
/// After an error response (or status 10) a binary client resends everything it wrote
/// after the named notification. Some of that the bridge had already forwarded; those
/// are recorded here, and a new connection whose notification matches an entry takes
/// one count of it (``take(_:for:now:)``) instead of forwarding: accepted ones are then
/// accepted silently, refused ones refused again with the new identifier, pending ones
/// answered when their answer arrives (``settle(_:with:now:)`` relays it).
///
/// Only recorded notifications are matched. The same content sent again on purpose, when
/// not recorded, is forwarded like any other; while recorded it is indistinguishable from
/// a resend and takes the entry, which is the price of exactly-once for resends.
///
/// Bounded in time (an entry is kept ``retention`` after it was recorded; a client that
/// resends later than that has it forwarded again) and in count (at ``capacity`` the
/// oldest entry makes room). Time is an input, as elapsed since an origin the driver
/// chooses; the record reads no clock. Claims (pending entries a connection took) are
/// not bounded by either: each is an answer some session awaits, and it ends when the
/// answer arrives, which the upstream always sends (a timeout is ``BridgeAnswer/maybeDelivered``).
///
/// A value type with no locks: the driver keeps one per tenant and guards it itself,
/// because the tenant's connections run on threads of their own.
package struct ResendRecord: Sendable {
    /// A recorded notification's answer.
    package enum Answer: Hashable, Sendable {
        /// Accepted (or unregistered: its feedback was queued when the answer came).
        case accepted
        /// Fate unknown; the binary client sees it accepted, and it is never forwarded again.
        case maybeDelivered
        /// Refused with this binary status.
        case refused(StatusCode)
        /// Forwarded, answer still to come.
        case pending
    }

    /// An answer to hand to the notification that took a pending entry.
    package struct Relay: Hashable, Sendable {
        /// The session's notification that took the entry.
        package let claimant: Arrival
        /// Its answer, for ``BridgeSession/answered(_:_:)``. An unregistered answer is
        /// relayed as accepted: its feedback was queued where it arrived.
        package let answer: BridgeAnswer

        /// A relay of `answer` to `claimant`.
        package init(claimant: Arrival, answer: BridgeAnswer) {
            self.claimant = claimant
            self.answer = answer
        }
    }

    /// One change to the record, for a driver that keeps it in a store (#41): read with
    /// ``takeChanges()`` after each input, when the record was made `journaling`.
    package enum Change: Hashable, Sendable {
        /// Entry `serial` was recorded `recordedAt` (the record's time).
        case inserted(serial: UInt64, key: ResendKey, answer: Answer, recordedAt: Duration)
        /// Entry `serial`'s pending answer arrived.
        case answered(serial: UInt64, Answer)
        /// Entry `serial` was taken, expired or dropped for room.
        case removed(serial: UInt64)
    }

    /// How long an entry is kept by default. A client that saw an error response
    /// reconnects at once, but it may resend only after the backlog it queued meanwhile:
    /// node-apn 1.x puts resends behind everything not yet written, and at 10,000 queued
    /// they came over 60 s after the first write (measured: 3,478 duplicates with a one-minute
    /// record). Ten minutes; the capacity bounds the memory whatever the rate.
    package static let defaultRetention: Duration = .seconds(600)
    /// How many entries are kept by default: ten windows of the default 10,000 in flight,
    /// a few hundred megabytes at the largest payloads.
    package static let defaultCapacity = 100_000

    /// How long after it was recorded an entry is dropped.
    package let retention: Duration
    /// How many entries are kept at most; the oldest is dropped to make room.
    package let capacity: Int

    private struct Entry: Sendable {
        let key: ResendKey
        let source: Arrival
        var answer: Answer
        let recordedAt: Duration
        /// Whether its changes are journaled: not for another bridge's entry (its row is
        /// that bridge's, ``restore(_:answer:recordedAt:as:)``).
        var logged = true
    }

    /// Live entries by serial number (serials grow with insertion, so they order entries).
    private var entries: [UInt64: Entry] = [:]
    /// The serials of each content, oldest first. Removed entries may linger as serials
    /// `entries` no longer has, but never at the front.
    private var serialsByKey: [ResendKey: FIFO<UInt64>] = [:]
    /// Every serial, oldest first, for dropping by age and count; the same lingering rule.
    private var order = FIFO<UInt64>()
    /// The pending entries, by the notification whose answer will settle them.
    private var pendingBySource: [Arrival: UInt64] = [:]
    /// Pending entries taken by a connection: whose answer goes to which notification.
    private var claims: [Arrival: Arrival] = [:]
    private var nextSerial: UInt64 = 0
    /// Whether changes are kept for ``takeChanges()``.
    package let journaling: Bool
    private var changes: [Change] = []

    /// An empty record; `capacity` 0 keeps nothing. With `journaling`, every change is kept
    /// until ``takeChanges()``.
    package init(retention: Duration = defaultRetention, capacity: Int = defaultCapacity, journaling: Bool = false) {
        precondition(capacity >= 0, "capacity must not be negative")
        self.retention = retention
        self.capacity = capacity
        self.journaling = journaling
    }

    /// The changes since the last call, in order (none unless `journaling`).
    package mutating func takeChanges() -> [Change] {
        guard !changes.isEmpty else { return [] }
        defer { changes.removeAll(keepingCapacity: true) }
        return changes
    }

    /// The entries held (claimed ones not included).
    package var count: Int { entries.count }

    /// How many entries hold `key`.
    package func count(of key: ResendKey) -> Int {
        guard let serials = serialsByKey[key] else { return 0 }
        return (0..<serials.count).count { entries[serials[$0]] != nil }
    }

    /// Pending entries taken by a connection whose answer has not arrived yet.
    package var claimCount: Int { claims.count }

    /// Records that `source` (content `key`) was forwarded after its connection's resend
    /// point, with its `answer` so far (``Answer/pending`` if none yet).
    package mutating func insert(_ key: ResendKey, answer: Answer, from source: Arrival, now: Duration) {
        expire(now: now)
        guard capacity > 0 else { return }
        while entries.count >= capacity, let oldest = order.first {
            remove(oldest)
        }
        let serial = nextSerial
        nextSerial += 1
        entries[serial] = Entry(key: key, source: source, answer: answer, recordedAt: now)
        serialsByKey[key, default: FIFO()].append(serial)
        order.append(serial)
        if answer == .pending { pendingBySource[source] = serial }
        if journaling { changes.append(.inserted(serial: serial, key: key, answer: answer, recordedAt: now)) }
    }

    /// How a restored entry's row is kept.
    package enum Restored: Sendable {
        /// Its row is already in the store under this serial (a takeover wrote it): its
        /// insertion is not journaled, its removal is.
        case stored(serial: UInt64)
        /// Another live bridge's entry, answering a client that moved here: nothing of it
        /// is journaled.
        case peer
    }

    /// Puts back an entry another bridge recorded, whose row is kept `as` says, recorded
    /// `recordedAt` (before this record's origin: negative). A pending answer will not come
    /// here — the bridge that awaited it is gone or answers its own client — so it is put
    /// back as maybe delivered: its request may have been written.
    package mutating func restore(_ key: ResendKey, answer: Answer, recordedAt: Duration, as kept: Restored) {
        expire(now: recordedAt)
        guard capacity > 0 else { return }
        while entries.count >= capacity, let oldest = order.first {
            remove(oldest)
        }
        let serial: UInt64
        switch kept {
        case .stored(let stored): serial = stored
        case .peer:
            // Above every serial this record gives (they count up from 0), below stored ones'.
            serial = peerSerial
            peerSerial += 1
        }
        let answer = answer == .pending ? .maybeDelivered : answer
        let source = Arrival(connection: .max, ordinal: Int(truncatingIfNeeded: serial))
        var entry = Entry(key: key, source: source, answer: answer, recordedAt: recordedAt)
        if case .peer = kept { entry.logged = false }
        entries[serial] = entry
        serialsByKey[key, default: FIFO()].append(serial)
        order.append(serial)
    }
    /// Serials of peer entries, in a range of their own.
    private var peerSerial: UInt64 = 1 << 62

    /// Takes one count of `key`, the oldest, for the notification `claimant`: returns its
    /// answer, or nil when nothing holds `key` (then forward it). A pending one is
    /// claimed: its answer will be relayed to `claimant` by ``settle(_:with:now:)``.
    package mutating func take(_ key: ResendKey, for claimant: Arrival, now: Duration) -> Answer? {
        expire(now: now)
        // Most connections never see a resend: skip hashing the payload then.
        guard !entries.isEmpty, let serial = serialsByKey[key]?.first, let entry = entries[serial] else { return nil }
        if entry.answer == .pending { claims[entry.source] = claimant }
        remove(serial)
        return entry.answer
    }

    /// `source`'s answer arrived (it was recorded pending). Returns where to relay it when
    /// a connection took the entry; otherwise the entry keeps the answer (a bridge failure
    /// drops it: not delivered, a resend goes out) and nil is returned.
    package mutating func settle(_ source: Arrival, with answer: BridgeAnswer, now: Duration) -> Relay? {
        expire(now: now)
        if let claimant = claims.removeValue(forKey: source) {
            if case .unregistered = answer { return Relay(claimant: claimant, answer: .accepted) }
            return Relay(claimant: claimant, answer: answer)
        }
        // Not found: dropped for age or count, and answers for it are no longer needed.
        guard let serial = pendingBySource.removeValue(forKey: source) else { return nil }
        if let recorded = answer.recorded {
            entries[serial]?.answer = recorded
            if journaling { changes.append(.answered(serial: serial, recorded)) }
        } else {
            remove(serial)
        }
        return nil
    }

    /// Drops the entries recorded `retention` or longer before `now`. The other methods do
    /// this first; call it to release memory on a quiet tenant.
    package mutating func expire(now: Duration) {
        while let serial = order.first, let entry = entries[serial], now - entry.recordedAt >= retention {
            remove(serial)
        }
    }

    /// Removes a live entry, then the lingering serials that reach a front.
    private mutating func remove(_ serial: UInt64) {
        guard let entry = entries.removeValue(forKey: serial) else { return }
        if journaling && entry.logged { changes.append(.removed(serial: serial)) }
        if entry.answer == .pending { pendingBySource[entry.source] = nil }
        // Through the index: one hash of the key (token and payload bytes), not one a step.
        if let index = serialsByKey.index(forKey: entry.key) {
            while let front = serialsByKey.values[index].first, entries[front] == nil {
                serialsByKey.values[index].removeFirst()
            }
            if serialsByKey.values[index].isEmpty { serialsByKey.remove(at: index) }
        }
        while let front = order.first, entries[front] == nil {
            order.removeFirst()
        }
        // Takes remove from the middle of `order`: compact it before the lingering serials
        // outnumber the live ones, so its memory stays proportional to `count`.
        if order.count > 2 * entries.count + 64 {
            let live = entries
            order.keep { live[$0] != nil }
        }
    }
}
