/// A provider's requests by id, ids handed out in enqueue order: a ring from the oldest
/// live id on, with holes where requests completed. Finding one is an index, not a hash
/// (the table holds every request waiting or in flight, hundreds of thousands after a
/// large send), and completing the oldest moves nothing: the ring's front advances past
/// the holes, where an array had to be compacted, its survivors copied, every so often.
struct ProviderEntryTable<Entry>: ~Copyable {
    private var slots = RingBuffer<Entry?>()
    /// The id at `slots[0]`.
    private var base = 1
    /// Live entries.
    private(set) var count = 0

    /// Appends `entry`; returns its id.
    mutating func append(_ entry: consuming Entry) -> Int {
        slots.append(consume entry)
        count += 1
        return base + slots.count - 1
    }

    /// Adds `entry` as id `id`, at or above the id ``append(_:)`` would give next (any id
    /// when the table is empty); the ids skipped are never live. For keys handed out
    /// elsewhere, such as a connection's stream ids.
    mutating func insert(_ entry: consuming Entry, at id: Int) {
        if count == 0 {
            slots.removeAll()
            base = id
        }
        precondition(id >= base + slots.count, "id \(id) is below the table's newest")
        while base + slots.count < id { slots.append(nil) }
        slots.append(consume entry)
        count += 1
    }

    /// Room for `additional` more entries without growing.
    mutating func reserve(_ additional: Int) {
        slots.reserveCapacity(slots.count + additional)
    }

    /// Entry `id`, if live.
    subscript(id: Int) -> Entry? {
        guard let index = index(of: id) else { return nil }
        return slots[index]
    }

    /// Runs `body` on entry `id` in place; nil when it is not live.
    mutating func modify<T>(_ id: Int, _ body: (inout Entry) -> T?) -> T? {
        guard let index = index(of: id), slots[index] != nil else { return nil }
        return body(&slots[index]!)
    }

    /// Removes entry `id` and returns it; nil when it is not live.
    mutating func remove(_ id: Int) -> Entry? {
        // Moved out, not copied and then overwritten: no retain and release of each reference.
        guard let index = index(of: id), let entry = slots[index].take() else { return nil }
        count -= 1
        dropCompletedFront()
        return entry
    }

    /// The oldest live entry.
    var oldest: (id: Int, entry: Entry)? {
        guard !slots.isEmpty, let entry = slots[0] else { return nil }
        return (base, entry)
    }

    /// The live entries, oldest first.
    var values: [Entry] { (0..<slots.count).compactMap { slots[$0] } }

    /// Removes every entry.
    mutating func removeAll() {
        slots.removeAll()
        count = 0
    }

    /// The live ids, oldest first.
    var ids: [Int] {
        (0..<slots.count).compactMap { slots[$0] == nil ? nil : base + $0 }
    }

    private func index(of id: Int) -> Int? {
        let index = id &- base
        return index >= 0 && index < slots.count ? index : nil
    }

    /// Moves the front past completed entries; an empty table gives back what a burst grew.
    private mutating func dropCompletedFront() {
        while !slots.isEmpty, slots[0] == nil {
            slots.dropFirstOwningNothing()
            base += 1
        }
        if slots.isEmpty { slots.releaseMemoryIfEmpty(above: 4_096) }
    }
}
