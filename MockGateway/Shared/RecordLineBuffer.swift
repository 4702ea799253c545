/// The bytes of record-file lines (`apn mock-gateway --record`), gathered for one large
/// `write(2)`: a growable buffer that lines are formatted into in place through a
/// ``RecordLineCursor``, and that keeps its capacity when emptied, so a writer that reuses
/// it formats millions of lines without allocating.
///
/// Not copyable: it owns its storage and frees it in `deinit`.
package struct RecordLineBuffer: ~Copyable {
    private var storage: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    /// How many bytes the lines take.
    package private(set) var count = 0

    /// An empty buffer with room for `capacity` bytes before it grows.
    package init(capacity: Int = 1 << 16) {
        self.capacity = max(capacity, 256)
        storage = .allocate(capacity: self.capacity)
    }

    deinit { storage.deallocate() }

    /// The lines gathered so far.
    package func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: storage, count: count))
    }

    /// Forgets the lines, keeping the capacity.
    package mutating func removeAll() {
        count = 0
    }

    /// Appends one line of at most `maximumLength` bytes, which `format` writes through the
    /// cursor it is given: one capacity check a line, then raw stores.
    mutating func appendLine(maximumLength: Int, _ format: (inout RecordLineCursor) -> Void) {
        if count + maximumLength > capacity {
            var newCapacity = capacity * 2
            while newCapacity < count + maximumLength { newCapacity *= 2 }
            let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
            grown.update(from: storage, count: count)
            storage.deallocate()
            storage = grown
            capacity = newCapacity
        }
        var cursor = RecordLineCursor(storage + count)
        format(&cursor)
        let written = cursor.position - (storage + count)
        precondition(written <= maximumLength, "a record line of \(written) bytes overran its bound of \(maximumLength)")
        count += written
    }
}
