/// Gives a session's received header lists the storage of earlier ones, once nothing
/// else holds it. Every message received took a new storage object (an allocation, and a
/// free when its reader dropped the event), about 450 instructions of a client's 30,000
/// a request (#45).
///
/// The storage of each message handed out is kept here too, oldest first (a list's
/// storage, capacity at most ``largestRecycled``; at most ``limit`` of them: at most 512 KiB
/// a session, about 150 KiB for a client's responses). A new header
/// block takes the oldest if this holds the only reference to it (its reader let its
/// event go: by the next `receive`, a reader that takes the events and handles them has),
/// else a new one. Copy-on-write storage is reused so in the standard library too: a
/// reference's count is only ever 1 once every other holder, on any thread, released it.
struct FieldStorageRecycler {
    /// Storages kept at most: enough for every response one `receive` can complete (a
    /// provider keeps at most 1,000 streams open), so that the next `receive` finds them
    /// free.
    static let limit = 1_024
    /// The largest storage kept, in bytes (a response's fields take about 100; a request's,
    /// which a server receives, about 700, and are not kept: a mock's many connections
    /// would each hold half a megabyte).
    static let largestRecycled = 512

    /// A ring of `limit` slots.
    private var ring: [(storage: HTTP2HeaderList.Storage, capacity: Int)?] = []
    private var head = 0
    private var count = 0

    /// An empty list with room for `capacity` bytes: the oldest storage kept, when it is
    /// free again, else a new one.
    mutating func list(reservingCapacity capacity: Int) -> HTTP2HeaderList {
        if count > 0, isKnownUniquelyReferenced(&ring[head]!.storage) {
            let (storage, kept) = ring[head].take()!
            head = (head + 1) % Self.limit
            count -= 1
            if kept >= capacity { return HTTP2HeaderList(reusing: storage, capacity: kept) }
        }
        return HTTP2HeaderList(reservingCapacity: capacity)
    }

    /// `list` is handed out: its storage is kept (the oldest kept let go when full).
    mutating func handedOut(_ list: HTTP2HeaderList) {
        guard let storage = list.storage, list.storageCapacity <= Self.largestRecycled else { return }
        if ring.isEmpty { ring = Array(repeating: nil, count: Self.limit) }
        if count == Self.limit {
            ring[head] = nil
            head = (head + 1) % Self.limit
            count -= 1
        }
        ring[(head + count) % Self.limit] = (storage, list.storageCapacity)
        count += 1
    }
}
