import Glibc

/// Large blocks of raw memory that never move once allocated, freed oldest first when the
/// owner no longer needs them (``freeOldest()``) or all together when the owner goes. The
/// ``RecordStore`` keeps its entries and bytes in them, so recording never copies what was
/// recorded before (an array doubling would).
///
/// Blocks are aligned to 2 MiB and marked for transparent huge pages (Linux's
/// `MADV_HUGEPAGE`; the default THP mode, `madvise`, uses them only when asked): the first
/// write to a block then faults in 2 MiB at a time instead of 4 KiB, which took a fifth of
/// the gateway thread's time when millions of notifications were recorded. Where huge
/// pages are off the advice is ignored and nothing else changes.
///
/// Not copyable: it owns the blocks and frees them in `deinit`.
struct MemoryBlocks: ~Copyable {
    /// A huge page on x86-64 and arm64 Linux (4 KiB base pages).
    static let hugePageSize = 2 << 20

    /// The blocks not freed yet, oldest first.
    private var blocks: [UnsafeMutableRawPointer] = []
    /// How many blocks were freed by ``freeOldest()``: the index of `blocks[0]`.
    private(set) var freedCount = 0

    /// How many blocks were allocated overall (freed ones included).
    var allocatedCount: Int { freedCount + blocks.count }

    /// A new block of `byteCount` bytes, uninitialized; it lives until it is freed.
    mutating func allocate(byteCount: Int) -> UnsafeMutableRawBufferPointer {
        let block = UnsafeMutableRawPointer.allocate(byteCount: byteCount, alignment: Self.hugePageSize)
        // Advice only: a failure (no THP support) leaves ordinary pages, which work too.
        _ = madvise(block, byteCount, MADV_HUGEPAGE)
        blocks.append(block)
        return UnsafeMutableRawBufferPointer(start: block, count: byteCount)
    }

    /// The `index`-th block allocated (0-based, counting freed ones); it must not be freed.
    func block(_ index: Int) -> UnsafeMutableRawPointer { blocks[index - freedCount] }

    /// Frees the oldest block still held.
    /// - Precondition: one is held.
    mutating func freeOldest() {
        blocks.removeFirst().deallocate()
        freedCount += 1
    }

    deinit {
        for block in blocks { block.deallocate() }
    }
}
