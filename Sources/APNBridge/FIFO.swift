/// A first-in first-out queue on a ring in an array: O(1) append, O(1) removal at the
/// front, O(1) access by offset from the front.
///
/// `Array.removeFirst()` shifts every element, which is quadratic for a queue that a
/// hundred thousand identical notifications pass through. A removed slot is set to `nil`
/// at once, so what it held (payload bytes) is released then. The ring never compacts:
/// an array with a moving head had to slide its live half down every so often, and to
/// destroy its dead slots through the runtime's generic value witnesses (about 300
/// instructions a forwarded notification over a session's queues, #45). It grows by
/// doubling, from one slot: a record's per-key queues mostly hold one element.
package struct FIFO<Element> {
    /// The ring: its count is its capacity, a power of two (or 0).
    private var storage: [Element?] = []
    private var head = 0
    /// The number of elements.
    package private(set) var count = 0

    /// An empty queue.
    package init() {}

    /// Whether the queue holds nothing.
    package var isEmpty: Bool { count == 0 }

    /// The front element, or nil when empty.
    package var first: Element? { isEmpty ? nil : storage[head] }

    /// The element `offset` places from the front.
    package subscript(offset: Int) -> Element {
        get { storage[slot(offset)]! }
        set { storage[slot(offset)] = newValue }
    }

    /// Adds `element` at the back.
    package mutating func append(_ element: consuming Element) {
        if count == storage.count { grow() }
        // Moved in: a borrowed element was copied into the slot (a retain of each of its
        // buffers) and the caller's then destroyed.
        storage[(head &+ count) & (storage.count &- 1)] = consume element
        count &+= 1
    }

    /// Removes and returns the front element; the queue must not be empty.
    @discardableResult
    package mutating func removeFirst() -> Element {
        precondition(!isEmpty, "removeFirst on an empty FIFO")
        let element = storage[head].take()!
        head = (head &+ 1) & (storage.count &- 1)
        count &-= 1
        return element
    }

    /// Keeps only the elements that satisfy `isIncluded`, in order.
    package mutating func keep(where isIncluded: (Element) -> Bool) {
        var kept = FIFO()
        while !isEmpty {
            let element = removeFirst()
            if isIncluded(element) { kept.append(element) }
        }
        self = kept
    }

    private func slot(_ offset: Int) -> Int {
        precondition(offset >= 0 && offset < count, "FIFO index \(offset) out of 0..<\(count)")
        return (head &+ offset) & (storage.count &- 1)
    }

    /// Doubles the ring, moving the elements to the front of the new one: the two runs
    /// either side of the old ring's end each in one move, the old slots then made `nil`
    /// again for the old array to destroy. (Element by element, through the arrays'
    /// subscripts, a growth cost hundreds of instructions an element.)
    private mutating func grow() {
        let newCapacity = Swift.max(1, storage.count * 2)
        let count = count, head = head
        let bigger = storage.withUnsafeMutableBufferPointer { old -> [Element?] in
            let firstRun = Swift.min(count, old.count - head)
            let bigger = [Element?](unsafeUninitializedCapacity: newCapacity) { new, initialized in
                let base = new.baseAddress!
                if count > 0 {
                    base.moveInitialize(from: old.baseAddress! + head, count: firstRun)
                    (base + firstRun).moveInitialize(from: old.baseAddress!, count: count - firstRun)
                }
                (base + count).initialize(repeating: nil, count: newCapacity - count)
                initialized = newCapacity
            }
            if count > 0 {
                (old.baseAddress! + head).initialize(repeating: nil, count: firstRun)
                old.baseAddress!.initialize(repeating: nil, count: count - firstRun)
            }
            return bigger
        }
        storage = bigger
        self.head = 0
    }
}

extension FIFO: Sendable where Element: Sendable {}
