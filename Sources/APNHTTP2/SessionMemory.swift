internal import CNGHTTP2
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The memory one nghttp2 session allocates from: blocks of up to ``largestRecycled`` bytes
/// are kept on a free list per size (16-byte steps) when nghttp2 frees them, and handed out
/// again, instead of going back to `malloc`. A request's stream, its header copy and its
/// frames take five blocks and give them back when it closes; with many streams open the
/// C library's per-thread cache misses on most of them, and its slow path cost more than
/// all of our own work on a request.
///
/// Bounded: at most ``cachedBytesLimit`` bytes wait on the lists; beyond that a freed block
/// goes back to `free`. Everything waiting is freed when the session is (``release()``).
/// One thread owns a session, so nothing here locks.
struct SessionMemory {
    /// Each block starts with this many bytes saying how many it holds (keeping the
    /// caller's part 16-byte aligned, as `malloc`'s is).
    private static let header = 16
    /// The size step of the lists (a shift by 4 in ``allocate(_:)`` and ``release(_:)``).
    private static let step = 16
    /// The largest block kept for reuse (a caller's size, header excluded).
    static let largestRecycled = 1_024
    private static let classes = largestRecycled / step + 1
    /// The most bytes waiting on the lists: what a thousand streams in flight hold (about
    /// eight blocks a request, some 1.5 MiB), with room. At 1 MiB a provider sending a
    /// thousand at a time overflowed it in every burst, and about one block a request went
    /// back to `free` and came again from `malloc`'s slow path (~340 instructions a
    /// request, #45). Only a session that once had that many streams holds that much.
    static let cachedBytesLimit = 4 << 20

    /// Per class, the first free block (its caller part holds the next one's address).
    private let lists: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    private var cachedBytes = 0

    init() {
        lists = .allocate(capacity: Self.classes)
        lists.initialize(repeating: nil, count: Self.classes)
    }

    /// A block for `size` bytes, or nil when the system has none.
    mutating func allocate(_ size: Int) -> UnsafeMutableRawPointer? {
        // At least one step: a waiting block holds the next one's address. (Wrapping
        // arithmetic on a size nghttp2 bounds: no overflow checks on the hot path.)
        let sizeClass = max(1, Int(bitPattern: (UInt(bitPattern: size) &+ UInt(Self.step - 1)) >> 4))
        if sizeClass < Self.classes, let block = lists[sizeClass] {
            lists[sizeClass] = block.load(as: UnsafeMutableRawPointer?.self)
            cachedBytes &-= sizeClass &<< 4
            return block
        }
        let capacity = sizeClass < Self.classes ? sizeClass * Self.step : size
        guard let base = malloc(Self.header + capacity) else { return nil }
        base.storeBytes(of: capacity, as: Int.self)
        return base + Self.header
    }

    /// Gives back a block from ``allocate(_:)`` (nil is allowed, as `free` allows it).
    mutating func release(_ block: UnsafeMutableRawPointer?) {
        guard let block else { return }
        let capacity = Self.capacity(of: block)
        guard capacity <= Self.largestRecycled, cachedBytes + capacity <= Self.cachedBytesLimit else {
            free(block - Self.header)
            return
        }
        let sizeClass = capacity &>> 4
        block.storeBytes(of: lists[sizeClass], as: UnsafeMutableRawPointer?.self)
        lists[sizeClass] = block
        cachedBytes &+= capacity
    }

    /// A block of `size` bytes holding `block`'s bytes (as many as fit), `block` given back.
    mutating func reallocate(_ block: UnsafeMutableRawPointer?, to size: Int) -> UnsafeMutableRawPointer? {
        guard let block else { return allocate(size) }
        let capacity = Self.capacity(of: block)
        if size <= capacity && capacity <= Self.largestRecycled { return block }
        guard let moved = allocate(size) else { return nil }
        moved.copyMemory(from: block, byteCount: min(size, capacity))
        release(block)
        return moved
    }

    /// The bytes a block from ``allocate(_:)`` can hold.
    private static func capacity(of block: UnsafeMutableRawPointer) -> Int {
        (block - header).load(as: Int.self)
    }

    /// Frees every block waiting on the lists and the lists: after the session is deleted.
    func releaseAll() {
        for sizeClass in 0..<Self.classes {
            var next = lists[sizeClass]
            while let block = next {
                next = block.load(as: UnsafeMutableRawPointer?.self)
                free(block - Self.header)
            }
        }
        lists.deinitialize(count: Self.classes)
        lists.deallocate()
    }

    /// The allocator nghttp2 calls, its user data pointing at a `SessionMemory`.
    static func allocator(_ memory: UnsafeMutablePointer<SessionMemory>) -> nghttp2_mem {
        nghttp2_mem(
            mem_user_data: memory,
            malloc: { size, userData in userData!.assumingMemoryBound(to: SessionMemory.self).pointee.allocate(size) },
            free: { block, userData in userData!.assumingMemoryBound(to: SessionMemory.self).pointee.release(block) },
            calloc: { count, size, userData in
                let (bytes, overflow) = count.multipliedReportingOverflow(by: size)
                guard !overflow, let block = userData!.assumingMemoryBound(to: SessionMemory.self).pointee.allocate(bytes) else { return nil }
                block.initializeMemory(as: UInt8.self, repeating: 0, count: bytes)
                return block
            },
            realloc: { block, size, userData in userData!.assumingMemoryBound(to: SessionMemory.self).pointee.reallocate(block, to: size) })
    }
}
