/// A double-ended FIFO on a power-of-two ring: O(1) append, prepend and removal at both
/// ends, O(1) indexed access. The session's queues live in these, so pushing, writing and
/// confirming a notification never shifts an array.
///
/// Elements are read and changed in place (`_read` / `_modify`) and moved, not copied, in
/// and out: an entry holds three references, and copying it would cost six reference
/// count operations. A value type with copy-on-write storage.
package struct RingBuffer<Element> {
    private var storage: Storage

    package init(minimumCapacity: Int = 16) {
        var capacity = 16
        while capacity < minimumCapacity { capacity <<= 1 }
        storage = Storage.make(capacity: capacity)
    }

    // The header is read through its pointer: `ManagedBuffer.header` is a class property,
    // and every access to it would pay a dynamic exclusivity check.
    package var count: Int { storage.withUnsafeMutablePointerToHeader { $0.pointee.count } }
    package var isEmpty: Bool { count == 0 }
    private var capacity: Int { storage.withUnsafeMutablePointerToHeader { $0.pointee.capacity } }

    /// The element `offset` places from the front.
    package subscript(offset: Int) -> Element {
        // Addressors, not get/set or coroutines: `ring[0].writtenAt` reads one field in
        // place instead of copying the whole element out and destroying the copy.
        unsafeAddress {
            UnsafePointer(slot(offset))
        }
        unsafeMutableAddress {
            makeUnique()
            return slot(offset)
        }
    }

    /// Where the element `offset` places from the front lives. The pointer stays valid while
    /// `storage` is neither replaced nor released, which its callers guarantee by using it
    /// at once; returning it from the closure avoids copying the element out.
    private func slot(_ offset: Int) -> UnsafeMutablePointer<Element> {
        precondition(offset >= 0 && offset < count, "RingBuffer index \(offset) out of 0..<\(count)")
        return storage.withUnsafeMutablePointers { header, elements in
            elements + ((header.pointee.head &+ offset) & (header.pointee.capacity &- 1))
        }
    }

    package mutating func append(_ element: consuming Element) {
        makeUnique()
        if count == capacity { grow() }
        // The pointer outlives the closure safely: `storage` stays alive, and fixed, in self.
        let slot = storage.withUnsafeMutablePointers { header, elements in
            header.pointee.count &+= 1
            return elements + ((header.pointee.head &+ header.pointee.count &- 1) & (header.pointee.capacity &- 1))
        }
        slot.initialize(to: element)
    }

    package mutating func prepend(_ element: consuming Element) {
        makeUnique()
        if count == capacity { grow() }
        let slot = storage.withUnsafeMutablePointers { header, elements in
            header.pointee.head = (header.pointee.head &- 1) & (header.pointee.capacity &- 1)
            header.pointee.count &+= 1
            return elements + header.pointee.head
        }
        slot.initialize(to: element)
    }

    /// Puts `elements` in front, keeping their order: `[e0, e1] + self`.
    package mutating func prepend(contentsOf elements: [Element]) {
        for index in elements.indices.reversed() { prepend(elements[index]) }
    }

    @discardableResult
    package mutating func removeFirst() -> Element {
        precondition(count > 0, "removeFirst on an empty RingBuffer")
        makeUnique()
        return storage.withUnsafeMutablePointers { header, elements in
            let element = (elements + header.pointee.head).move()
            header.pointee.head = (header.pointee.head &+ 1) & (header.pointee.capacity &- 1)
            header.pointee.count &-= 1
            return element
        }
    }

    @discardableResult
    package mutating func removeLast() -> Element {
        precondition(count > 0, "removeLast on an empty RingBuffer")
        makeUnique()
        return storage.withUnsafeMutablePointers { header, elements in
            header.pointee.count &-= 1
            let slot = (header.pointee.head &+ header.pointee.count) & (header.pointee.capacity &- 1)
            return (elements + slot).move()
        }
    }

    package mutating func popFirst() -> Element? {
        isEmpty ? nil : removeFirst()
    }

    private mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&storage) {
            storage = storage.copy(capacity: capacity)
        }
    }

    private mutating func grow() {
        storage = storage.move(capacity: capacity * 2)
    }

    struct Header {
        var head = 0
        var count = 0
        var capacity: Int
    }

    /// The ring's memory: `capacity` slots after the header, `count` of them initialized
    /// from `head` on, wrapping.
    final class Storage: ManagedBuffer<Header, Element> {
        static func make(capacity: Int) -> Storage {
            let buffer = Storage.create(minimumCapacity: capacity) { _ in Header(capacity: capacity) }
            return unsafeDowncast(buffer, to: Storage.self)
        }

        /// A new storage holding copies of the elements, front first.
        func copy(capacity: Int) -> Storage {
            let fresh = Storage.make(capacity: capacity)
            withUnsafeMutablePointers { header, elements in
                fresh.withUnsafeMutablePointers { freshHeader, freshElements in
                    for offset in 0..<header.pointee.count {
                        let slot = (header.pointee.head + offset) & (header.pointee.capacity - 1)
                        (freshElements + offset).initialize(to: elements[slot])
                    }
                    freshHeader.pointee.count = header.pointee.count
                }
            }
            return fresh
        }

        /// A new storage the elements are moved into; this one is left empty.
        func move(capacity: Int) -> Storage {
            let fresh = Storage.make(capacity: capacity)
            withUnsafeMutablePointers { header, elements in
                fresh.withUnsafeMutablePointers { freshHeader, freshElements in
                    for offset in 0..<header.pointee.count {
                        let slot = (header.pointee.head + offset) & (header.pointee.capacity - 1)
                        (freshElements + offset).moveInitialize(from: elements + slot, count: 1)
                    }
                    freshHeader.pointee.count = header.pointee.count
                    header.pointee.count = 0
                }
            }
            return fresh
        }

        deinit {
            withUnsafeMutablePointers { header, elements in
                for offset in 0..<header.pointee.count {
                    (elements + ((header.pointee.head + offset) & (header.pointee.capacity - 1))).deinitialize(count: 1)
                }
            }
        }
    }
}
