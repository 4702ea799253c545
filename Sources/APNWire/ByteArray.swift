/// A `[UInt8]` of `count` bytes, each written by `body`: what `[UInt8](unsafeUninitializedCapacity:)`
/// does, without its cost on Linux. That initializer allocates through the standard
/// library's unspecialized `Array._allocateBufferUninitialized`, which looks up the storage
/// class's generic metadata in the runtime's locked cache on every call — about 360
/// instructions an array, as much as decoding a token (callgrind, Swift 6.3). An array
/// made from a buffer is allocated by code specialized here, whose metadata reference is
/// cached. Small counts are written on the stack first.
package func byteArray(count: Int, _ body: (UnsafeMutableBufferPointer<UInt8>) -> Void) -> [UInt8] {
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: count) { buffer in
        body(buffer)
        return Array(UnsafeBufferPointer(buffer))
    }
}
