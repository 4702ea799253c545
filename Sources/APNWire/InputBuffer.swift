/// The bytes a streaming decoder has been fed and not yet consumed.
///
/// Decoders only ever wait for bytes the peer has already promised by a length field that
/// passed its limit, so this buffer grows with what is fed, never with what a length
/// field claims.
struct InputBuffer: Sendable {
    private var bytes: [UInt8] = []
    private var readIndex = 0

    /// Bytes fed and not consumed.
    var available: Int { bytes.count - readIndex }

    mutating func append(_ input: UnsafeRawBufferPointer) {
        if readIndex == bytes.count {
            bytes.removeAll(keepingCapacity: true)
            readIndex = 0
        } else if readIndex >= 4096, readIndex * 2 >= bytes.count {
            // Reclaim the consumed prefix once it dominates, so a long stream of small
            // reads does not grow the array without bound.
            bytes.removeSubrange(0..<readIndex)
            readIndex = 0
        }
        bytes.append(contentsOf: input)
    }

    /// The byte `offset` bytes past the read position. - Precondition: it was fed.
    func u8(at offset: Int) -> UInt8 {
        bytes[readIndex + offset]
    }

    /// The big-endian u16 `offset` bytes past the read position.
    func u16(at offset: Int) -> UInt16 {
        UInt16(u8(at: offset)) << 8 | UInt16(u8(at: offset + 1))
    }

    /// The big-endian u32 `offset` bytes past the read position.
    func u32(at offset: Int) -> UInt32 {
        UInt32(u16(at: offset)) << 16 | UInt32(u16(at: offset + 2))
    }

    /// A copy of `count` bytes starting `offset` bytes past the read position.
    func copy(at offset: Int, count: Int) -> [UInt8] {
        let start = readIndex + offset
        return Array(bytes[start..<(start + count)])
    }

    /// Calls `body` with the bytes fed and not consumed; the pointer is valid only inside.
    func withUnsafeReadableBytes<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        bytes.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[readIndex...])) }
    }

    mutating func consume(_ count: Int) {
        readIndex += count
    }
}

extension InputBuffer {
    mutating func append(_ input: [UInt8]) {
        input.withUnsafeBytes { append($0) }
    }
}
