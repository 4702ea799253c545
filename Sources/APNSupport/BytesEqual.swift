/// Whether `count` bytes at `a` and `b` are the same. Inlined word by word: header fields
/// are short, and a call to `memcmp` for each costs more than comparing them here.
@inlinable @inline(__always)
package func bytesEqual(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, count: Int) -> Bool {
    var offset = 0
    while offset + 8 <= count {
        if a.loadUnaligned(fromByteOffset: offset, as: UInt64.self) != b.loadUnaligned(fromByteOffset: offset, as: UInt64.self) {
            return false
        }
        offset += 8
    }
    while offset < count {
        if a.load(fromByteOffset: offset, as: UInt8.self) != b.load(fromByteOffset: offset, as: UInt8.self) {
            return false
        }
        offset += 1
    }
    return true
}

/// Whether `string` is encoded as exactly `bytes` (byte for byte, not canonical equivalence):
/// how a received field is matched with the string kept from an earlier one.
@inlinable @inline(__always)
package func utf8Equals(_ string: String, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    string.utf8.withContiguousStorageIfAvailable { stored in
        stored.count == bytes.count && (bytes.isEmpty || bytesEqual(stored.baseAddress!, bytes.baseAddress!, count: bytes.count))
    } ?? false
}
