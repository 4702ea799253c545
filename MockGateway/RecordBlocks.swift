/// The storage under both record stores (``RecordStore``, ``HTTP2RecordStore``): one
/// fixed-size `Entry` per record in entry blocks, and each record's variable bytes back to
/// back in byte blocks, all in large blocks that never move (``MemoryBlocks``). Nothing is
/// allocated per record, and nothing recorded before is copied when storage grows.
///
/// Not copyable: it owns the blocks and frees them.
struct RecordBlocks<Entry>: ~Copyable {
    /// Entries per entry block (65,536: 2 MiB of 32-byte entries).
    static var entriesPerBlock: Int { 1 << 16 }
    /// The least size of a byte block; a record larger than that gets a block of its own.
    static var byteBlockSize: Int { 4 << 20 }

    private var entryBlocks = MemoryBlocks()
    private var byteBlocks = MemoryBlocks()
    /// The entry block being filled (the last of `entryBlocks`).
    private var currentEntries: UnsafeMutablePointer<Entry>?
    /// The free part of the byte block being filled.
    private var nextByte: UnsafeMutableRawPointer?
    private var freeByteCount = 0
    /// How many entries are stored.
    private(set) var count = 0

    /// `length` bytes for the next record, uninitialized; they stay where they are as long
    /// as `self` lives.
    mutating func reserveBytes(_ length: Int) -> UnsafeMutableRawPointer {
        if freeByteCount < length || nextByte == nil {
            let block = byteBlocks.allocate(byteCount: max(Self.byteBlockSize, length))
            nextByte = block.baseAddress
            freeByteCount = block.count
        }
        let bytes = nextByte!
        nextByte = bytes + length
        freeByteCount -= length
        return bytes
    }

    /// Stores `entry` after the others.
    mutating func append(_ entry: Entry) {
        let slot = count % Self.entriesPerBlock
        if slot == 0 {
            currentEntries = entryBlocks.allocate(byteCount: Self.entriesPerBlock * MemoryLayout<Entry>.stride)
                .bindMemory(to: Entry.self).baseAddress
        }
        (currentEntries! + slot).initialize(to: entry)
        count += 1
    }

    /// The entry at `index` (0-based, below ``count``).
    subscript(index: Int) -> Entry {
        entryBlocks.block(index / Self.entriesPerBlock).assumingMemoryBound(to: Entry.self)[index % Self.entriesPerBlock]
    }
}
