import APNSupport

/// The header fields of a received request or response, in the order they arrived, held as bytes in one
/// buffer: each field is its name's and its value's length (native `UInt32`s) followed by
/// the name and the value. A server receives about ten fields a request; as `[HTTP2Header]`
/// each cost two strings (an allocation and a UTF-8 check for every one that differs from
/// the last request's), their retains and releases, and an array. Here a field costs two
/// copies into a buffer sized after the previous request's (up to 4 KiB), so a request's fields
/// take one allocation, and a reader makes strings only of the values it keeps
/// (``withFieldCursor(_:)``). As a `Sequence` it hands out ``HTTP2Header``s, made as it goes.
///
/// A value type with copy-on-write storage.
package struct HTTP2HeaderList: @unchecked Sendable {
    // @unchecked: `storage` is a class, written only by `append`, which first copies it unless
    // this list holds the only reference (`isKnownUniquelyReferenced`). A list handed to
    // another thread shares storage no one writes again, as an array's would.

    @usableFromInline
    typealias Storage = ManagedBuffer<Void, UInt8>

    /// Each field's two lengths.
    @usableFromInline
    static let lengthsSize = 2 * MemoryLayout<UInt32>.size

    /// The fields' bytes. The counts live here rather than in the storage's header, whose
    /// every read would be a class property's dynamic exclusivity check.
    @usableFromInline
    var storage: Storage?
    /// The bytes used in `storage`.
    @usableFromInline
    private(set) var byteCountValue = 0
    private var fieldCount = 0
    private var capacity = 0

    /// No fields.
    package init() {}

    /// No fields yet, with room for `capacity` bytes of them (names, values, and eight bytes
    /// a field): one allocation for a request like the previous one.
    package init(reservingCapacity capacity: Int) {
        if capacity > 0 {
            storage = Self.makeStorage(capacity: capacity)
            self.capacity = capacity
        }
    }

    /// No fields, in `storage` (``FieldStorageRecycler``): held by nothing else, room for
    /// `capacity` bytes.
    init(reusing storage: Storage, capacity: Int) {
        self.storage = storage
        self.capacity = capacity
    }

    /// The bytes `storage` has room for.
    var storageCapacity: Int { capacity }

    /// `fields`' names and values.
    package init(_ fields: [HTTP2Header]) {
        self.init(reservingCapacity: fields.reduce(0) { $0 + Self.lengthsSize + $1.name.utf8.count + $1.value.utf8.count })
        for field in fields {
            var name = field.name
            var value = field.value
            name.withUTF8 { name in value.withUTF8 { value in append(name: name, value: value) } }
        }
    }

    /// The number of fields.
    package var count: Int { fieldCount }

    /// The bytes the fields take here: what ``init(reservingCapacity:)`` needs for the same fields.
    package var byteCount: Int { byteCountValue }

    /// Adds a field with these name and value bytes.
    package mutating func append(name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) {
        let size = Self.lengthsSize + name.count + value.count
        makeRoom(for: size)
        storage!.withUnsafeMutablePointerToElements { bytes in
            let field = UnsafeMutableRawPointer(bytes + byteCountValue)
            field.storeBytes(of: UInt32(truncatingIfNeeded: name.count), as: UInt32.self)
            field.storeBytes(of: UInt32(truncatingIfNeeded: value.count), toByteOffset: 4, as: UInt32.self)
            let nameStart = field + Self.lengthsSize
            if let source = name.baseAddress { nameStart.copyMemory(from: source, byteCount: name.count) }
            if let source = value.baseAddress { (nameStart + name.count).copyMemory(from: source, byteCount: value.count) }
        }
        byteCountValue += size
        fieldCount += 1
    }

    /// Keeps only the first `count` fields, which take `byteCount` bytes (a header block
    /// dropped: a 1xx response's).
    package mutating func truncate(toByteCount byteCount: Int, count: Int) {
        precondition(byteCount <= byteCountValue && count <= fieldCount, "truncating to more than is held")
        byteCountValue = byteCount
        fieldCount = count
    }

    /// The name and value of the field that starts `offset` bytes in, passed to `body`; nil
    /// when no field starts there.
    package func field<Result>(
        atByte offset: Int, _ body: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>) -> Result
    ) -> Result? {
        withFieldCursor { cursor in
            cursor.offset = offset
            guard let (name, value) = cursor.next() else { return nil }
            return body(name, value)
        }
    }

    /// Calls `body` with the value of the field that starts `offset` bytes in (an offset
    /// ``FieldCursor/offset`` handed out), valid during the call. Not generic, unlike
    /// ``field(atByte:_:)``: called from another module for every request, that one went
    /// unspecialized, a runtime metadata look-up a call.
    package func withValue(atByte offset: Int, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        withFieldCursor { cursor in
            cursor.offset = offset
            guard let (_, value) = cursor.next() else { preconditionFailure("no field starts at byte \(offset)") }
            body(value)
        }
    }

    /// Calls `body` with a cursor over the fields' bytes, which hands out each field's name
    /// and value in order (``FieldCursor/next()``). The pointers are valid only during the
    /// call. A cursor rather than a closure per field: what a reader builds stays a local
    /// of `body`, returned without a copy.
    @inlinable
    package func withFieldCursor<Result>(_ body: (inout FieldCursor) throws -> Result) rethrows -> Result {
        guard let storage else {
            var cursor = FieldCursor(bytes: nil, end: 0)
            return try body(&cursor)
        }
        let end = byteCountValue
        return try storage.withUnsafeMutablePointerToElements { bytes in
            var cursor = FieldCursor(bytes: UnsafePointer(bytes), end: end)
            return try body(&cursor)
        }
    }

    /// ``withFieldCursor(_:)`` without the closure, for a reader whose result would be
    /// captured by one (and copied out of it, the original destroyed): a cursor valid while
    /// the list lives unchanged, which the caller ensures (a parameter it borrows, which
    /// its caller holds through the call). The storage's bytes do not move while it lives.
    @inlinable
    package var unsafeFieldCursor: FieldCursor {
        guard let storage else { return FieldCursor(bytes: nil, end: 0) }
        return FieldCursor(bytes: UnsafePointer(storage.withUnsafeMutablePointerToElements { $0 }), end: byteCountValue)
    }

    /// Walks a list's fields (``withFieldCursor(_:)``).
    package struct FieldCursor {
        @usableFromInline let bytes: UnsafePointer<UInt8>?
        @usableFromInline let end: Int
        /// Where the next field starts: a position ``HTTP2HeaderList/field(atByte:_:)`` takes.
        @usableFromInline package internal(set) var offset = 0

        @usableFromInline
        init(bytes: UnsafePointer<UInt8>?, end: Int) {
            self.bytes = bytes
            self.end = end
        }

        /// The next field's name and value bytes, or `nil` after the last.
        @inlinable
        package mutating func next() -> (name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>)? {
            guard offset < end, let bytes else { return nil }
            let field = UnsafeRawPointer(bytes + offset)
            let nameCount = Int(field.loadUnaligned(as: UInt32.self))
            let valueCount = Int(field.loadUnaligned(fromByteOffset: 4, as: UInt32.self))
            let name = bytes + offset + HTTP2HeaderList.lengthsSize
            offset += HTTP2HeaderList.lengthsSize + nameCount + valueCount
            return (UnsafeBufferPointer(start: name, count: nameCount), UnsafeBufferPointer(start: name + nameCount, count: valueCount))
        }
    }

    /// The value of the first field named `name`, if any (`headers[":path"]`).
    package subscript(name: String) -> String? {
        first { $0.name == name }?.value
    }

    /// Storage with room for `size` more bytes, held by this list alone.
    private mutating func makeRoom(for size: Int) {
        let needed = byteCount + size
        if capacity >= needed && isKnownUniquelyReferenced(&storage) { return }
        let grownCapacity = Swift.max(needed, capacity * 2)
        let grown = Self.makeStorage(capacity: grownCapacity)
        if let old = storage {
            old.withUnsafeMutablePointerToElements { oldBytes in
                grown.withUnsafeMutablePointerToElements { bytes in bytes.update(from: oldBytes, count: byteCountValue) }
            }
        }
        storage = grown
        capacity = grownCapacity
    }

    private static func makeStorage(capacity: Int) -> Storage {
        Storage.create(minimumCapacity: capacity) { _ in }
    }
}

extension HTTP2HeaderList: Sequence {
    /// Hands out the fields as ``HTTP2Header``s (received fields: all indexable).
    package struct Iterator: IteratorProtocol {
        let list: HTTP2HeaderList
        var offset = 0

        /// The next field, its strings made from its bytes.
        package mutating func next() -> HTTP2Header? {
            let start = offset
            let field = list.withFieldCursor { cursor -> HTTP2Header? in
                cursor.offset = start
                guard let (name, value) = cursor.next() else { return nil }
                offset = cursor.offset
                return HTTP2Header(String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self))
            }
            return field
        }
    }

    /// The fields from the first.
    package func makeIterator() -> Iterator { Iterator(list: self) }

    /// The number of fields.
    package var underestimatedCount: Int { count }
}

extension HTTP2HeaderList: Equatable {
    /// The same fields, byte for byte, in the same order.
    package static func == (lhs: HTTP2HeaderList, rhs: HTTP2HeaderList) -> Bool {
        guard lhs.count == rhs.count, lhs.byteCount == rhs.byteCount else { return false }
        guard lhs.byteCount > 0, let left = lhs.storage, let right = rhs.storage, left !== right else { return true }
        return left.withUnsafeMutablePointerToElements { a in
            right.withUnsafeMutablePointerToElements { b in bytesEqual(a, b, count: lhs.byteCount) }
        }
    }

    /// The fields of `rhs`, in its order (whether a field is indexable takes no part, as in
    /// ``HTTP2Header``'s `==`).
    package static func == (lhs: HTTP2HeaderList, rhs: [HTTP2Header]) -> Bool {
        lhs.elementsEqual(rhs)
    }
}

extension HTTP2HeaderList: ExpressibleByArrayLiteral {
    /// These fields (tests and vectors write an event's fields so).
    package init(arrayLiteral fields: HTTP2Header...) {
        self.init(fields)
    }
}

extension HTTP2HeaderList: CustomStringConvertible {
    /// "name: value" for each field, comma-separated.
    package var description: String { "[" + map(\.description).joined(separator: ", ") + "]" }
}
