/// A first-in first-out queue on a ring: O(1) append, O(1) removal at the front, O(1)
/// access by offset from the front. A value type, copied on write.
///
/// `Array.removeFirst()` shifts every element, which is quadratic for a queue that a
/// hundred thousand identical notifications pass through. A removed element is destroyed
/// at once, so what it held (payload bytes) is released then. The ring never compacts and
/// grows by doubling, from one slot: a record's per-key queues mostly hold one element.
///
/// The ring is raw memory in a ``FIFOStorage`` that knows which slots are live, not an
/// array of optionals: an array is destroyed by the runtime through generic value
/// witnesses, every slot of it, empty ones included, and a ring grown to 16,384 slots for a
/// connection's accepted tail left 16,383 empty slots behind in its smaller rings and
/// 16,384 more at the connection's end (#45: ~300 instructions a forwarded notification).
package struct FIFO<Element> {
    /// The ring.
    private var storage: FIFOStorage<Element>

    /// An empty queue.
    package init() {
        storage = .make(capacity: 1)
    }

    /// The number of elements.
    package var count: Int { ring.count }

    /// Where the elements are. Read through the pointer, as every access here is: the
    /// `header` property is a class's stored property, each access checked for exclusivity
    /// at run time (~130 instructions).
    private var ring: FIFORing { storage.withUnsafeMutablePointerToHeader { $0.pointee } }

    /// Whether the queue holds nothing.
    package var isEmpty: Bool { count == 0 }

    /// The front element, or nil when empty.
    package var first: Element? {
        storage.withUnsafeMutablePointers { header, elements in
            header.pointee.count == 0 ? nil : elements[header.pointee.head]
        }
    }

    /// The element `offset` places from the front.
    package subscript(offset: Int) -> Element {
        get {
            storage.withUnsafeMutablePointers { header, elements in
                elements[header.pointee.slot(offset)]
            }
        }
        set {
            makeUnique(room: 0)
            storage.withUnsafeMutablePointers { header, elements in
                elements[header.pointee.slot(offset)] = newValue
            }
        }
    }

    /// Adds `element` at the back.
    package mutating func append(_ element: consuming Element) {
        makeUnique(room: 1)
        // Moved in: a borrowed element was copied into the slot (a retain of each of its
        // buffers) and the caller's then destroyed.
        let element = consume element
        storage.withUnsafeMutablePointers { header, elements in
            let ring = header.pointee
            (elements + ((ring.head &+ ring.count) & (ring.capacity &- 1))).initialize(to: element)
            header.pointee.count = ring.count &+ 1
        }
    }

    /// Removes and returns the front element; the queue must not be empty.
    @discardableResult
    package mutating func removeFirst() -> Element {
        precondition(!isEmpty, "removeFirst on an empty FIFO")
        makeUnique(room: 0)
        return storage.withUnsafeMutablePointers { header, elements in
            let ring = header.pointee
            header.pointee.head = (ring.head &+ 1) & (ring.capacity &- 1)
            header.pointee.count = ring.count &- 1
            return (elements + ring.head).move()
        }
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

    /// Removes every element, one at a time by code compiled for `Element` (a dropped
    /// ring's are destroyed through generic value witnesses), and gives the memory back.
    package mutating func removeAll() {
        if isKnownUniquelyReferenced(&storage) {
            while !isEmpty { removeFirst() }
        }
        storage = .make(capacity: 1)
    }

    /// Makes the ring this queue's own (copied if shared) with room for `room` more.
    private mutating func makeUnique(room: Int) {
        let unique = isKnownUniquelyReferenced(&storage)
        let ring = ring
        let needed = ring.count + room
        guard !unique || needed > ring.capacity else { return }
        var capacity = ring.capacity
        while capacity < needed { capacity <<= 1 }
        storage = unique ? storage.moved(toCapacity: capacity) : storage.copied(toCapacity: capacity)
    }
}

// `@unchecked`: the ring is a class, so the checker cannot see that it is only changed
// through a queue that holds it uniquely (``FIFO/makeUnique(room:)`` copies a shared one
// first, as `Array` does); a ring two queues share is only read.
extension FIFO: @unchecked Sendable where Element: Sendable {}

/// Where a ``FIFOStorage``'s live elements are: `count` of them from `head` on, wrapping
/// at `capacity` (a power of two).
struct FIFORing {
    let capacity: Int
    var head = 0
    var count = 0

    /// The slot of the element `offset` places from the front.
    func slot(_ offset: Int) -> Int {
        precondition(offset >= 0 && offset < count, "FIFO index \(offset) out of 0..<\(count)")
        return (head &+ offset) & (capacity &- 1)
    }
}

/// The ring of a ``FIFO``, its elements in the same allocation as its ``FIFORing``.
/// Changed only by the one queue that holds it uniquely.
final class FIFOStorage<Element>: ManagedBuffer<FIFORing, Element> {
    /// An empty ring of `capacity` slots.
    static func make(capacity: Int) -> FIFOStorage {
        unsafeDowncast(create(minimumCapacity: capacity) { _ in FIFORing(capacity: capacity) }, to: FIFOStorage.self)
    }

    deinit {
        // Only the live slots: empty ones hold nothing to destroy.
        withUnsafeMutablePointers { header, elements in
            let ring = header.pointee
            for offset in 0..<ring.count {
                (elements + ((ring.head &+ offset) & (ring.capacity &- 1))).deinitialize(count: 1)
            }
        }
    }

    /// A ring of `capacity` holding this one's elements, moved: this one is left empty.
    /// The two runs either side of the ring's end move at once (element by element, a
    /// growth cost hundreds of instructions an element).
    func moved(toCapacity capacity: Int) -> FIFOStorage {
        let bigger = FIFOStorage.make(capacity: capacity)
        withUnsafeMutablePointers { header, elements in
            let ring = header.pointee
            let firstRun = min(ring.count, ring.capacity - ring.head)
            bigger.withUnsafeMutablePointers { newHeader, newElements in
                newElements.moveInitialize(from: elements + ring.head, count: firstRun)
                (newElements + firstRun).moveInitialize(from: elements, count: ring.count - firstRun)
                newHeader.pointee.count = ring.count
            }
            header.pointee.count = 0
            header.pointee.head = 0
        }
        return bigger
    }

    /// A ring of `capacity` holding copies of this one's elements (a shared queue changed).
    func copied(toCapacity capacity: Int) -> FIFOStorage {
        let copy = FIFOStorage.make(capacity: capacity)
        withUnsafeMutablePointers { header, elements in
            let ring = header.pointee
            copy.withUnsafeMutablePointers { newHeader, newElements in
                for offset in 0..<ring.count {
                    (newElements + offset).initialize(to: elements[(ring.head &+ offset) & (ring.capacity &- 1)])
                }
                newHeader.pointee.count = ring.count
            }
        }
        return copy
    }
}
