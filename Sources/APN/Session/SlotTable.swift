/// A growing table of noncopyable slots, in the order they were added (a slot's index is
/// its position): the pool's sessions (``ConnectionPool``) and the driver's sockets.
/// `Array` cannot hold noncopyable elements, so this owns its memory directly and hands
/// out slots in place through addressors: `slots[i].session.push(…)` changes the session
/// where it lives, with no copy and no runtime exclusivity check.
struct SlotTable<Slot: ~Copyable>: ~Copyable {
    private var elements: UnsafeMutablePointer<Slot>
    private var capacity: Int
    /// The number of slots.
    private(set) var count = 0

    init() {
        capacity = 1
        elements = .allocate(capacity: capacity)
    }

    deinit {
        elements.deinitialize(count: count)
        elements.deallocate()
    }

    var isEmpty: Bool { count == 0 }

    /// The positions of the slots, `0..<count`.
    var indices: Range<Int> { 0..<count }

    subscript(index: Int) -> Slot {
        unsafeAddress {
            precondition(index >= 0 && index < count, "slot \(index) out of 0..<\(count)")
            return UnsafePointer(elements + index)
        }
        unsafeMutableAddress {
            precondition(index >= 0 && index < count, "slot \(index) out of 0..<\(count)")
            return elements + index
        }
    }

    /// Adds a slot at position `count`.
    mutating func append(_ slot: consuming Slot) {
        if count == capacity {
            let bigger = UnsafeMutablePointer<Slot>.allocate(capacity: capacity * 2)
            bigger.moveInitialize(from: elements, count: count)
            elements.deallocate()
            elements = bigger
            capacity *= 2
        }
        (elements + count).initialize(to: slot)
        count += 1
    }

    /// Whether any slot satisfies `predicate`.
    func contains(where predicate: (borrowing Slot) -> Bool) -> Bool {
        for index in 0..<count where predicate(elements[index]) { return true }
        return false
    }
}
