/// The open streams by id. The streams themselves sit in `entries`, reused through a free
/// list, and never move while open; an open-addressing hash table with linear probing,
/// sized to a power of two and at most half full, maps ids to them. A lookup is a
/// multiplication, a shift and usually one comparison (`Dictionary` would run SipHash on
/// every id, several times per request), and removal shifts back 8-byte index entries,
/// never streams.
///
/// The home slot comes from multiply-shift hashing (Dietzfelbinger) with a random odd
/// multiplier per table: consecutive ids scatter instead of forming one long run (which
/// would make every removal scan the run), and a peer, which picks the ids of its streams,
/// cannot choose ids that collide. A client's table holds the ids it picks itself, in
/// order, two apart: their home is the id halved (``init(sequentialIDs:)``), so the ids
/// open at once, a window of them, each sit at home — no probe, no shifting on removal,
/// and no run-to-run spread from the multiplier drawn (±60 instructions a request at each
/// of insert, look-up and removal, #45). An id that stays open while the others move on
/// by more than the slots meets a newer one at its home, and Robin Hood places it.
///
/// Robin Hood placement: an id takes the slot of one nearer its own home, so every id sits
/// as close to its home as the others allow, and a removal shifts back only the run up to
/// the first id at its home or an empty slot. With plain linear probing a removal scanned
/// the whole cluster after the hole, whose length depended on the multiplier drawn: the
/// same client run cost from 300 to 900 instructions a request here, run to run.
///
/// Neither shrinks: the table keeps the size of the most streams open at once (for a
/// server, at most the SETTINGS_MAX_CONCURRENT_STREAMS it advertised).
///
/// Noncopyable, on memory it owns: a stream's state is read and changed in place through
/// addressors. In arrays, every access from a callback (about 25 a request) went through a
/// coroutine and a uniqueness check of the array.
struct StreamTable: ~Copyable {
    /// The stream id in each hash slot; 0 (never a stream's id) marks an empty one.
    private var keys: UnsafeMutablePointer<Int32>
    /// For each hash slot in use, the index of its stream in `entries`.
    private var indices: UnsafeMutablePointer<Int32>
    /// The number of hash slots, a power of two.
    private var slotCount: Int
    /// The streams, `entryCount` of them initialized; those at `free` indices are empty and
    /// unused.
    private var entries: UnsafeMutablePointer<StreamState>
    private var entryCapacity: Int
    private var entryCount = 0
    private var free: [Int32] = []
    /// The hash multiplier, odd; 0 for ids that are their own hash (``init(sequentialIDs:)``).
    private let multiplier: UInt64
    /// 64 minus log2 of the hash slot count: a home slot is the product's top bits.
    private var shift = 64 - 6

    /// Streams in the table.
    var count: Int { entryCount - free.count }

    /// An empty table. `sequentialIDs`: the ids are this side's own, handed out in order
    /// (a client's streams), not a peer's to choose.
    init(sequentialIDs: Bool = false) {
        multiplier = sequentialIDs ? 0 : UInt64.random(in: .min ... .max) | 1
        slotCount = 1 << (64 - shift)
        keys = .allocate(capacity: slotCount)
        keys.initialize(repeating: 0, count: slotCount)
        indices = .allocate(capacity: slotCount)
        indices.initialize(repeating: 0, count: slotCount)
        entryCapacity = slotCount / 2
        entries = .allocate(capacity: entryCapacity)
    }

    deinit {
        entries.deinitialize(count: entryCount)
        entries.deallocate()
        keys.deallocate()
        indices.deallocate()
    }

    /// The index of stream `id`'s entry, if it is in the table.
    func slot(of id: Int32) -> Int? {
        position(of: id).map { Int(indices[$0]) }
    }

    /// Whether a stream with an id up to `id` is in the table: a scan of every hash slot,
    /// for a question asked rarely (a server about to send GOAWAY).
    func containsStream(atOrBelow id: Int32) -> Bool {
        UnsafeBufferPointer(start: keys, count: slotCount).contains { $0 != 0 && $0 <= id }
    }

    /// The stream at `slot` (from ``slot(of:)``), read or changed in place.
    subscript(slot slot: Int) -> StreamState {
        unsafeAddress {
            precondition(slot >= 0 && slot < entryCount, "stream slot \(slot) out of 0..<\(entryCount)")
            return UnsafePointer(entries + slot)
        }
        unsafeMutableAddress {
            precondition(slot >= 0 && slot < entryCount, "stream slot \(slot) out of 0..<\(entryCount)")
            return entries + slot
        }
    }

    /// Adds stream `id` (not in the table) with `state`; returns its slot.
    @discardableResult
    mutating func insert(_ id: Int32, _ state: consuming StreamState) -> Int {
        let slot = claimSlot(for: id)
        entries[slot] = consume state
        return slot
    }

    /// Adds a client's stream `id` (not in the table) with the request body to send: built
    /// in its slot, where a state passed in was copied there and then destroyed, for every
    /// request.
    @discardableResult
    mutating func insert(_ id: Int32, outgoing: [UInt8]) -> Int {
        let slot = claimSlot(for: id)
        entries[slot].outgoing = outgoing
        return slot
    }

    /// A slot for stream `id`, holding a fresh ``StreamState`` (a reused one was reset by
    /// ``remove(_:)``), and `id` placed in the hash slots.
    private mutating func claimSlot(for id: Int32) -> Int {
        if (count + 1) * 2 > slotCount {
            grow()
        }
        let index: Int32
        if let reused = free.popLast() {
            index = reused
        } else {
            if entryCount == entryCapacity { growEntries() }
            (entries + entryCount).initialize(to: StreamState())
            index = Int32(entryCount)
            entryCount += 1
        }
        place(id, index)
        return Int(index)
    }

    /// Removes stream `id`; `false` when it is not in the table. What the stream held is
    /// released, not handed back (callers read what they need first): moving a whole state
    /// out cost a copy and a destruction per stream.
    @discardableResult
    mutating func remove(_ id: Int32) -> Bool {
        var reported = false
        return remove(id, reported: &reported)
    }

    /// ``remove(_:)``, telling in `reported` whether the stream's message was reported.
    mutating func remove(_ id: Int32, reported: inout Bool) -> Bool {
        guard let position = position(of: id) else { return false }
        let index = Int(indices[position])
        reported = entries[index].reported
        entries[index] = StreamState()
        free.append(Int32(index))
        // Shift back the ids after the hole that are away from their homes (Robin Hood
        // order keeps them contiguous): the first empty slot or id at its home ends it.
        let mask = slotCount - 1
        var hole = position
        var next = (position + 1) & mask
        while keys[next] != 0 && home(keys[next]) != next {
            keys[hole] = keys[next]
            indices[hole] = indices[next]
            hole = next
            next = (next + 1) & mask
        }
        keys[hole] = 0
        return true
    }

    /// Where stream `id` goes when nothing is in the way.
    private func home(_ id: Int32) -> Int {
        if multiplier == 0 { return Int(truncatingIfNeeded: UInt32(bitPattern: id) >> 1) & (slotCount &- 1) }
        return Int(truncatingIfNeeded: (UInt64(UInt32(bitPattern: id)) &* multiplier) >> UInt64(shift))
    }

    /// The hash slot holding `id`, if any.
    private func position(of id: Int32) -> Int? {
        let mask = slotCount - 1
        var position = home(id)
        while true {
            let key = keys[position]
            if key == id { return position }
            if key == 0 { return nil }
            position = (position + 1) & mask
        }
    }

    /// Puts `id` → `index` on its probe path from its home: in the first free slot, or in
    /// the slot of an id nearer its own home, which moves on (Robin Hood).
    private mutating func place(_ id: Int32, _ index: Int32) {
        let mask = slotCount - 1
        var id = id
        var index = index
        var position = home(id)
        var distance = 0
        while keys[position] != 0 {
            let residentDistance = (position - home(keys[position])) & mask
            if residentDistance < distance {
                swap(&id, &keys[position])
                swap(&index, &indices[position])
                distance = residentDistance
            }
            position = (position + 1) & mask
            distance += 1
        }
        keys[position] = id
        indices[position] = index
    }

    /// Doubles the hash slots and puts every id back; the streams stay where they are.
    private mutating func grow() {
        let (oldKeys, oldIndices, oldCount) = (keys, indices, slotCount)
        shift -= 1
        slotCount *= 2
        keys = .allocate(capacity: slotCount)
        keys.initialize(repeating: 0, count: slotCount)
        indices = .allocate(capacity: slotCount)
        indices.initialize(repeating: 0, count: slotCount)
        for position in 0..<oldCount where oldKeys[position] != 0 {
            place(oldKeys[position], oldIndices[position])
        }
        oldKeys.deallocate()
        oldIndices.deallocate()
    }

    /// Doubles the room for streams, moving them (their indices stay).
    private mutating func growEntries() {
        let bigger = UnsafeMutablePointer<StreamState>.allocate(capacity: entryCapacity * 2)
        bigger.moveInitialize(from: entries, count: entryCount)
        entries.deallocate()
        entries = bigger
        entryCapacity *= 2
    }
}
