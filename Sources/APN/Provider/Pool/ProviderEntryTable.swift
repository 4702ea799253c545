/// A provider's requests by id, ids handed out in enqueue order: an array from the oldest
/// live id on, with holes where requests completed. Finding one is an index, not a hash
/// (the table holds every request waiting or in flight, hundreds of thousands after a
/// large send).
struct ProviderEntryTable<Entry> {
    private var slots: [Entry?] = []
    /// Where the oldest live id is in `slots`.
    private var head = 0
    /// The id at `slots[head]`.
    private var base = 1
    /// Live entries.
    private(set) var count = 0

    /// Appends `entry`; returns its id.
    mutating func append(_ entry: Entry) -> Int {
        slots.append(entry)
        count += 1
        return base + (slots.count - 1 - head)
    }

    /// Adds `entry` as id `id`, at or above the id ``append(_:)`` would give next (any id
    /// when the table is empty); the ids skipped are never live. For keys handed out
    /// elsewhere, such as a connection's stream ids.
    mutating func insert(_ entry: Entry, at id: Int) {
        if count == 0 {
            slots.removeAll(keepingCapacity: true)
            head = 0
            base = id
        }
        precondition(id >= base + slots.count - head, "id \(id) is below the table's newest")
        while base + slots.count - head < id { slots.append(nil) }
        slots.append(entry)
        count += 1
    }

    /// Room for `additional` more entries without growing (at least doubling, so repeated
    /// calls do not copy the table each time).
    mutating func reserve(_ additional: Int) {
        let needed = slots.count + additional
        if slots.capacity < needed { slots.reserveCapacity(max(needed, 2 * slots.capacity)) }
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
        guard head < slots.count, let entry = slots[head] else { return nil }
        return (base, entry)
    }

    /// The live entries, oldest first.
    var values: [Entry] { slots[head...].compactMap { $0 } }

    /// Removes every entry.
    mutating func removeAll() {
        slots.removeAll(keepingCapacity: true)
        head = 0
        count = 0
    }

    /// The live ids, oldest first.
    var ids: [Int] {
        slots.indices.dropFirst(head).compactMap { slots[$0] == nil ? nil : base + ($0 - head) }
    }

    private func index(of id: Int) -> Int? {
        let index = head + (id - base)
        return id >= base && index < slots.count ? index : nil
    }

    /// Moves `head` past completed entries; compacts once the dead prefix is most of the
    /// array (amortized constant time per entry).
    private mutating func dropCompletedFront() {
        while head < slots.count, slots[head] == nil {
            head += 1
            base += 1
        }
        if head == slots.count {
            // Empty: keep a modest array, give back what a burst grew.
            slots.removeAll(keepingCapacity: slots.capacity <= 4_096)
            head = 0
        } else if head > 1_024, head * 2 > slots.count {
            slots.removeFirst(head)
            head = 0
        }
    }
}
