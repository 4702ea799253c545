/// A double-ended FIFO on a power-of-two ring: O(1) append, prepend and removal at both
/// ends, O(1) indexed access. The session's queues live in these, so pushing, writing and
/// confirming a notification never shifts an array.
///
/// Noncopyable, with its memory owned directly: there is no copy-on-write, so no
/// uniqueness check on every change (a runtime call each), and elements are read and
/// changed in place through addressors and moved, never copied, in and out.
package struct RingBuffer<Element>: ~Copyable {
    private var elements: UnsafeMutablePointer<Element>
    private var capacity: Int
    private var head = 0
    /// The number of elements.
    package private(set) var count = 0

    package init(minimumCapacity: Int = 16) {
        var capacity = 16
        while capacity < minimumCapacity { capacity <<= 1 }
        self.capacity = capacity
        elements = .allocate(capacity: capacity)
    }

    deinit {
        for offset in 0..<count {
            (elements + ((head + offset) & (capacity - 1))).deinitialize(count: 1)
        }
        elements.deallocate()
    }

    package var isEmpty: Bool { count == 0 }

    /// The front element, or nil when empty.
    package var first: Element? { isEmpty ? nil : self[0] }

    /// The element `offset` places from the front.
    package subscript(offset: Int) -> Element {
        // Addressors, not get/set or coroutines: `ring[0].writtenAt` reads one field in
        // place instead of copying the whole element out and destroying the copy.
        unsafeAddress {
            UnsafePointer(slot(offset))
        }
        unsafeMutableAddress {
            slot(offset)
        }
    }

    private func slot(_ offset: Int) -> UnsafeMutablePointer<Element> {
        precondition(offset >= 0 && offset < count, "RingBuffer index \(offset) out of 0..<\(count)")
        return elements + ((head &+ offset) & (capacity &- 1))
    }

    package mutating func append(_ element: consuming Element) {
        if count == capacity { grow() }
        (elements + ((head &+ count) & (capacity &- 1))).initialize(to: element)
        count &+= 1
    }

    package mutating func prepend(_ element: consuming Element) {
        if count == capacity { grow() }
        head = (head &- 1) & (capacity &- 1)
        (elements + head).initialize(to: element)
        count &+= 1
    }

    /// Puts `elements` in front, keeping their order: `[e0, e1] + self`.
    package mutating func prepend(contentsOf elements: [Element]) {
        for index in elements.indices.reversed() { prepend(elements[index]) }
    }

    @discardableResult
    package mutating func removeFirst() -> Element {
        precondition(count > 0, "removeFirst on an empty RingBuffer")
        let element = (elements + head).move()
        head = (head &+ 1) & (capacity &- 1)
        count &-= 1
        return element
    }

    @discardableResult
    package mutating func removeLast() -> Element {
        precondition(count > 0, "removeLast on an empty RingBuffer")
        count &-= 1
        return (elements + ((head &+ count) & (capacity &- 1))).move()
    }

    /// Removes the front element without destroying it: for an element that owns nothing
    /// (a `nil` optional), whose destruction would still go through the runtime's generic
    /// value witnesses for an optional of a large struct.
    package mutating func dropFirstOwningNothing() {
        precondition(count > 0, "dropFirstOwningNothing on an empty RingBuffer")
        head = (head &+ 1) & (capacity &- 1)
        count &-= 1
    }

    package mutating func popFirst() -> Element? {
        isEmpty ? nil : removeFirst()
    }

    /// When empty and holding room for more than `limit` elements, gives the memory back
    /// (a burst, a cancelled send of 100,000, must not keep its ring for good).
    package mutating func releaseMemoryIfEmpty(above limit: Int) {
        guard count == 0, capacity > limit else { return }
        elements.deallocate()
        capacity = 16
        elements = .allocate(capacity: capacity)
        head = 0
    }

    /// Room for `minimumCapacity` elements without growing (one move of the elements, not
    /// several doublings, before a large batch).
    package mutating func reserveCapacity(_ minimumCapacity: Int) {
        guard minimumCapacity > capacity else { return }
        var target = capacity
        while target < minimumCapacity { target <<= 1 }
        resize(to: target)
    }

    /// Removes every element, keeping the memory.
    package mutating func removeAll() {
        while count > 0 { removeLast() }
        head = 0
    }

    /// Doubles the capacity.
    private mutating func grow() {
        resize(to: capacity * 2)
    }

    /// Moves the elements to the front of new memory for `newCapacity` (a power of two, at
    /// least `count`): the two runs either side of the ring's end, each in one move.
    private mutating func resize(to newCapacity: Int) {
        let bigger = UnsafeMutablePointer<Element>.allocate(capacity: newCapacity)
        let firstRun = min(count, capacity - head)
        bigger.moveInitialize(from: elements + head, count: firstRun)
        (bigger + firstRun).moveInitialize(from: elements, count: count - firstRun)
        elements.deallocate()
        elements = bigger
        capacity = newCapacity
        head = 0
    }
}
