/// A first-in first-out queue on an array with a moving head: O(1) append, O(1) removal
/// at the front, O(1) access by offset from the front.
///
/// `Array.removeFirst()` shifts every element, which is quadratic for a queue that a
/// hundred thousand identical notifications pass through. Removed slots are set to `nil`
/// at once, so what they held (payload bytes) is released then, not at the next compaction.
package struct FIFO<Element> {
    private var storage: [Element?] = []
    private var head = 0

    /// An empty queue.
    package init() {}

    /// The number of elements.
    package var count: Int { storage.count - head }

    /// Whether the queue holds nothing.
    package var isEmpty: Bool { head == storage.count }

    /// The front element, or nil when empty.
    package var first: Element? { isEmpty ? nil : storage[head] }

    /// The element `offset` places from the front.
    package subscript(offset: Int) -> Element {
        get { storage[head + offset]! }
        set { storage[head + offset] = newValue }
    }

    /// Adds `element` at the back.
    package mutating func append(_ element: Element) {
        storage.append(element)
    }

    /// Removes and returns the front element; the queue must not be empty.
    @discardableResult
    package mutating func removeFirst() -> Element {
        precondition(!isEmpty, "removeFirst on an empty FIFO")
        let element = storage[head].take()!
        head += 1
        if head == storage.count {
            storage.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 64, head * 2 >= storage.count {
            // Half the array is dead slots: slide the live half down, amortised O(1).
            storage.removeFirst(head)
            head = 0
        }
        return element
    }

    /// Keeps only the elements that satisfy `isIncluded`, in order.
    package mutating func keep(where isIncluded: (Element) -> Bool) {
        storage = storage[head...].filter { isIncluded($0!) }
        head = 0
    }
}

extension FIFO: Sendable where Element: Sendable {}
