/// A growable byte buffer that frames are appended to and written from.
///
/// The encoders append whole frames with one capacity check and raw stores, so a warm
/// buffer (one whose capacity already covers the frames) encodes without allocating.
/// Bytes are consumed from the front (`consume(_:)`) as a socket accepts them; the
/// unconsumed bytes stay contiguous so they can be handed to `SSL_write` as they are.
///
/// `WireBuffer` is a value type with copy-on-write storage: copies are cheap and
/// independent.
public struct WireBuffer: Sendable {
    @usableFromInline var storage: Storage
    /// Offset of the first unconsumed byte.
    @usableFromInline var readerIndex: Int = 0
    /// Offset just past the last written byte.
    @usableFromInline var writerIndex: Int = 0

    /// An empty buffer with room for `capacity` bytes before it has to grow.
    public init(capacity: Int = 16 * 1024) {
        storage = Storage.create(capacity: max(capacity, 16))
    }

    /// A buffer holding `bytes`.
    public init(_ bytes: some Sequence<UInt8>) {
        let array = Array(bytes)
        self.init(capacity: array.count)
        write(array)
    }

    /// The number of bytes written and not yet consumed.
    @inlinable public var readableBytes: Int { writerIndex - readerIndex }

    /// Whether there are no unconsumed bytes.
    @inlinable public var isEmpty: Bool { writerIndex == readerIndex }

    /// The bytes the buffer can hold without growing (counting consumed space, which is
    /// reclaimed on the next growth or `clear()`).
    public var capacity: Int { storage.capacity }

    /// The unconsumed bytes, as an array (for tests and logging; the hot path uses
    /// `withUnsafeReadableBytes`).
    public var readableBytesArray: [UInt8] {
        withUnsafeReadableBytes { Array($0) }
    }

    /// Calls `body` with the unconsumed bytes. The pointer is valid only inside `body`.
    @inlinable
    public func withUnsafeReadableBytes<R, E: Error>(
        _ body: (UnsafeRawBufferPointer) throws(E) -> R
    ) throws(E) -> R {
        let base = storage.pointer
        return try body(UnsafeRawBufferPointer(start: base + readerIndex, count: readableBytes))
    }

    /// Drops `count` bytes from the front, e.g. after a socket accepted them.
    /// - Precondition: `count <= readableBytes`.
    @inlinable
    public mutating func consume(_ count: Int) {
        precondition(count >= 0 && count <= readableBytes, "consume(\(count)) past the readable bytes")
        readerIndex += count
        if readerIndex == writerIndex {
            readerIndex = 0
            writerIndex = 0
        }
    }

    /// Removes every byte and keeps the capacity.
    @inlinable
    public mutating func clear() {
        readerIndex = 0
        writerIndex = 0
    }

    /// Makes sure `count` more bytes can be written without growing.
    public mutating func reserveWritable(_ count: Int) {
        _ = writableStart(count)
    }

    /// Appends raw bytes.
    public mutating func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { write($0) }
    }

    /// Appends raw bytes. Inlinable, as the capacity check it makes: an HTTP/2 driver
    /// writes each frame nghttp2 serializes (two a request) through it.
    @inlinable
    public mutating func write(_ bytes: UnsafeRawBufferPointer) {
        let start = writableStart(bytes.count)
        if let source = bytes.baseAddress, bytes.count > 0 {
            start.copyMemory(from: source, byteCount: bytes.count)
        }
        writerIndex += bytes.count
    }

    /// Returns where `count` bytes can be written, growing or compacting first if needed.
    /// The caller stores the bytes, then advances `writerIndex` by `count`.
    @inlinable
    mutating func writableStart(_ count: Int) -> UnsafeMutableRawPointer {
        if !isKnownUniquelyReferenced(&storage) {
            unshare(toFit: count)
        } else if writerIndex + count > storage.capacity {
            grow(toFit: count)
        }
        return storage.pointer + writerIndex
    }

    /// A storage of this buffer's own, with room for `count` more bytes (a copy shares it).
    @usableFromInline
    mutating func unshare(toFit count: Int) {
        storage = storage.copy(from: readerIndex, to: writerIndex, capacity: max(storage.capacity, readableBytes + count))
        writerIndex -= readerIndex
        readerIndex = 0
    }

    @usableFromInline
    mutating func grow(toFit count: Int) {
        let needed = readableBytes + count
        if needed <= storage.capacity / 2 {
            // Plenty of room once the consumed prefix is reclaimed: slide instead of grow.
            storage.pointer.copyMemory(from: storage.pointer + readerIndex, byteCount: readableBytes)
        } else {
            var newCapacity = storage.capacity
            while newCapacity < needed { newCapacity *= 2 }
            storage = storage.copy(from: readerIndex, to: writerIndex, capacity: newCapacity)
        }
        writerIndex -= readerIndex
        readerIndex = 0
    }

    /// The heap block behind a `WireBuffer`.
    ///
    /// `@unchecked Sendable` is safe because the bytes are only written through a
    /// `WireBuffer` that holds the sole reference (`isKnownUniquelyReferenced` is checked
    /// before every write and the storage is copied otherwise), so no two threads can
    /// ever see a write to the same storage: the usual copy-on-write argument.
    @usableFromInline
    final class Storage: @unchecked Sendable {
        @usableFromInline let pointer: UnsafeMutableRawPointer
        @usableFromInline let capacity: Int

        private init(capacity: Int) {
            self.capacity = capacity
            self.pointer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
        }

        static func create(capacity: Int) -> Storage {
            Storage(capacity: capacity)
        }

        func copy(from start: Int, to end: Int, capacity: Int) -> Storage {
            let fresh = Storage(capacity: capacity)
            fresh.pointer.copyMemory(from: pointer + start, byteCount: end - start)
            return fresh
        }

        deinit {
            pointer.deallocate()
        }
    }
}

extension WireBuffer: Equatable {
    /// Two buffers are equal when their unconsumed bytes are.
    public static func == (lhs: WireBuffer, rhs: WireBuffer) -> Bool {
        lhs.withUnsafeReadableBytes { l in rhs.withUnsafeReadableBytes { r in l.elementsEqual(r) } }
    }
}

extension WireBuffer: CustomStringConvertible {
    /// The unconsumed bytes in lowercase hex.
    public var description: String {
        withUnsafeReadableBytes { hexString($0) }
    }
}
