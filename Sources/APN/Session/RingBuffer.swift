/// A double-ended FIFO on a power-of-two ring: O(1) append, prepend and removal at both
/// ends, O(1) indexed access. The session's queues live in these so that pushing,
/// writing and confirming a notification never shifts an array.
struct RingBuffer<Element>: Sequence {
    private var slots: ContiguousArray<Element?>
    private var head = 0
    private(set) var count = 0

    init(minimumCapacity: Int = 16) {
        var capacity = 16
        while capacity < minimumCapacity { capacity <<= 1 }
        slots = ContiguousArray(repeating: nil, count: capacity)
    }

    var isEmpty: Bool { count == 0 }
    var first: Element? { count == 0 ? nil : self[0] }
    var last: Element? { count == 0 ? nil : self[count - 1] }

    private var mask: Int { slots.count - 1 }

    /// The element `offset` places from the front.
    subscript(offset: Int) -> Element {
        get {
            precondition(offset >= 0 && offset < count, "RingBuffer index \(offset) out of 0..<\(count)")
            return slots[(head + offset) & mask]!
        }
        set {
            precondition(offset >= 0 && offset < count, "RingBuffer index \(offset) out of 0..<\(count)")
            slots[(head + offset) & mask] = newValue
        }
    }

    mutating func append(_ element: Element) {
        if count == slots.count { grow() }
        slots[(head + count) & mask] = element
        count += 1
    }

    mutating func prepend(_ element: Element) {
        if count == slots.count { grow() }
        head = (head - 1) & mask
        slots[head] = element
        count += 1
    }

    /// Puts `elements` in front, keeping their order: `[e0, e1] + self`.
    mutating func prepend(contentsOf elements: some BidirectionalCollection<Element>) {
        for element in elements.reversed() { prepend(element) }
    }

    @discardableResult
    mutating func removeFirst() -> Element {
        precondition(count > 0, "removeFirst on an empty RingBuffer")
        let element = slots[head].take()!
        head = (head + 1) & mask
        count -= 1
        return element
    }

    mutating func popFirst() -> Element? {
        count == 0 ? nil : removeFirst()
    }

    @discardableResult
    mutating func removeLast() -> Element {
        precondition(count > 0, "removeLast on an empty RingBuffer")
        count -= 1
        return slots[(head + count) & mask].take()!
    }

    mutating func removeAll() {
        while count > 0 { removeFirst() }
        head = 0
    }

    private mutating func grow() {
        var bigger = ContiguousArray<Element?>(repeating: nil, count: slots.count * 2)
        for offset in 0..<count {
            bigger[offset] = slots[(head + offset) & mask].take()
        }
        slots = bigger
        head = 0
    }

    func makeIterator() -> AnyIterator<Element> {
        var offset = 0
        return AnyIterator {
            guard offset < count else { return nil }
            defer { offset += 1 }
            return self[offset]
        }
    }
}

extension RingBuffer: Sendable where Element: Sendable {}
