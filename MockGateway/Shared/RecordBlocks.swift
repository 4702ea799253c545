/// The storage under both record stores (``RecordStore``, ``HTTP2RecordStore``): one
/// fixed-size `Entry` per record in entry blocks, and each record's variable bytes back to
/// back in byte blocks, all in large blocks that never move (``MemoryBlocks``). Nothing is
/// allocated per record, and nothing recorded before is copied when storage grows.
///
/// Records are numbered from 0 in the order stored and keep their number. Those below
/// ``firstKept`` were released (``release(upTo:)``, or discarded under the
/// ``RecordRetention``) and must not be read; their blocks are freed once no kept record
/// lies in them.
///
/// Not copyable: it owns the blocks and frees them.
struct RecordBlocks<Entry>: ~Copyable {
    /// Entries per entry block (65,536: 2 MiB of 32-byte entries).
    static var entriesPerBlock: Int { 1 << 16 }
    /// The least size of a byte block; a record larger than that gets a block of its own.
    static var byteBlockSize: Int { 4 << 20 }

    private let retention: RecordRetention
    private var entryBlocks = MemoryBlocks()
    private var byteBlocks = MemoryBlocks()
    /// For each byte block held, the number of the first record whose bytes lie in it:
    /// records go into byte blocks in order, so a block is free once the next one's first
    /// record is released.
    private var byteBlockFirstRecord: [Int] = []
    /// The entry block being filled (the last of `entryBlocks`).
    private var currentEntries: UnsafeMutablePointer<Entry>?
    /// The free part of the byte block being filled.
    private var nextByte: UnsafeMutableRawPointer?
    private var freeByteCount = 0
    /// How many entries were stored overall.
    private(set) var count = 0
    /// The number of the oldest record kept; those below were released or discarded.
    private(set) var firstKept = 0

    init(retention: RecordRetention) {
        self.retention = retention
    }

    /// How many more records may be stored before the retention's limit under
    /// ``RecordRetention/Overflow/pauseConnections``; `Int.max` under `discardOldest`.
    var room: Int {
        guard retention.whenFull == .pauseConnections else { return .max }
        return max(0, retention.limit - (count - firstKept))
    }

    /// Whether no record is kept at all (a limit of 0, discarding: `apn mock-gateway` without
    /// `--record`): records are then only counted (``countWithoutKeeping()``), not copied.
    var keepsNone: Bool { retention.limit == 0 && retention.whenFull == .discardOldest }

    /// Counts a record that is not kept, as storing and discarding it at once would.
    mutating func countWithoutKeeping() {
        count += 1
        firstKept = count
    }

    /// `length` bytes for the next record, uninitialized; they stay where they are until
    /// the record is released.
    mutating func reserveBytes(_ length: Int) -> UnsafeMutableRawPointer {
        if freeByteCount < length || nextByte == nil {
            let block = byteBlocks.allocate(byteCount: max(Self.byteBlockSize, length))
            byteBlockFirstRecord.append(count)
            nextByte = block.baseAddress
            freeByteCount = block.count
        }
        let bytes = nextByte!
        nextByte = bytes + length
        freeByteCount -= length
        return bytes
    }

    /// Stores `entry` after the others, discarding the oldest when the retention says so.
    mutating func append(_ entry: Entry) {
        let slot = count % Self.entriesPerBlock
        if slot == 0 {
            currentEntries = entryBlocks.allocate(byteCount: Self.entriesPerBlock * MemoryLayout<Entry>.stride)
                .bindMemory(to: Entry.self).baseAddress
        }
        (currentEntries! + slot).initialize(to: entry)
        count += 1
        if retention.whenFull == .discardOldest && count - firstKept > retention.limit {
            release(upTo: count - retention.limit)
        }
    }

    /// Releases the records numbered below `end` (at most ``count``), freeing every block
    /// that holds no kept record. Releasing what was released already does nothing.
    mutating func release(upTo end: Int) {
        let end = min(end, count)
        guard end > firstKept else { return }
        firstKept = end
        // Entries are plain values (pointers and integers): a block is freed without
        // deinitializing them.
        while entryBlocks.freedCount < entryBlocks.allocatedCount,
            (entryBlocks.freedCount + 1) * Self.entriesPerBlock <= firstKept
        {
            entryBlocks.freeOldest()
        }
        // The block being filled is never freed: the next record goes into it.
        while byteBlockFirstRecord.count > 1, byteBlockFirstRecord[1] <= firstKept {
            byteBlocks.freeOldest()
            byteBlockFirstRecord.removeFirst()
        }
    }

    /// Replaces `entries` with the entries at `range` (within ``firstKept``..<``count``) and
    /// `bytes` with their bytes, back to back in the same order, where `location` says an
    /// entry's bytes lie: records stored one after the other lie together in a byte block,
    /// so each such run is copied at once.
    func copy(
        _ range: Range<Int>, entries: inout [Entry], bytes: inout [UInt8],
        location: (Entry) -> (start: UnsafeRawPointer, count: Int)
    ) {
        entries.removeAll(keepingCapacity: true)
        bytes.removeAll(keepingCapacity: true)
        entries.reserveCapacity(range.count)
        var run: (start: UnsafeRawPointer, count: Int)?
        for index in range {
            let entry = self[index]
            entries.append(entry)
            let (start, count) = location(entry)
            if let current = run, current.start + current.count == start {
                run = (current.start, current.count + count)
            } else {
                if let current = run { bytes.append(contentsOf: UnsafeRawBufferPointer(start: current.start, count: current.count)) }
                run = (start, count)
            }
        }
        if let current = run { bytes.append(contentsOf: UnsafeRawBufferPointer(start: current.start, count: current.count)) }
    }

    /// The entry numbered `index` (from ``firstKept`` to below ``count``).
    subscript(index: Int) -> Entry {
        entryBlocks.block(index / Self.entriesPerBlock).assumingMemoryBound(to: Entry.self)[index % Self.entriesPerBlock]
    }
}
