/// Reads a fuzz input front to back: a few leading bytes steer the run (chunk sizes, a
/// mode), the rest is the data under test.
public struct FuzzInput {
    /// The whole input.
    public let bytes: [UInt8]
    /// Where the next read starts.
    public private(set) var offset = 0

    /// Copies the `count` bytes at `start` (libFuzzer's arguments; `start` may be nil when empty).
    public init(_ start: UnsafePointer<UInt8>?, _ count: Int) {
        bytes = start.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? []
    }

    /// Bytes not read yet.
    public var remaining: Int { bytes.count - offset }

    /// The next byte, or 0 past the end.
    public mutating func byte() -> UInt8 {
        guard offset < bytes.count else { return 0 }
        defer { offset += 1 }
        return bytes[offset]
    }

    /// Up to `count` next bytes.
    public mutating func take(_ count: Int) -> ArraySlice<UInt8> {
        let end = min(bytes.count, offset + max(0, count))
        defer { offset = end }
        return bytes[offset..<end]
    }

    /// Every byte not read yet.
    public mutating func rest() -> [UInt8] {
        Array(take(remaining))
    }

    /// Splits `data` into chunks whose sizes cycle through `sizes` (each 1...256; a size
    /// byte of 0 means 256), the way a socket might deliver it.
    public static func chunks(of data: [UInt8], sizes: [UInt8]) -> [ArraySlice<UInt8>] {
        let steps = sizes.isEmpty ? [0] : sizes
        var result: [ArraySlice<UInt8>] = []
        var start = 0
        var index = 0
        while start < data.count {
            let size = steps[index % steps.count] == 0 ? 256 : Int(steps[index % steps.count])
            let end = min(data.count, start + size)
            result.append(data[start..<end])
            start = end
            index += 1
        }
        return result
    }
}
