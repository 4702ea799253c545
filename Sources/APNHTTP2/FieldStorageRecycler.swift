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
///
/// Noncopyable, on memory it owns: in an array of optionals, every look at the oldest and
/// every store went through the array's uniqueness check and the optional's tag.
struct FieldStorageRecycler: ~Copyable {
    /// Storages kept at most: enough for every response one `receive` can complete (a
    /// provider keeps at most 1,000 streams open), so that the next `receive` finds them
    /// free.
    static let limit = 1_024
    /// The largest storage kept, in bytes (a response's fields take about 100; a request's,
    /// which a server receives, about 700, and are not kept: a mock's many connections
    /// would each hold half a megabyte).
    static let largestRecycled = 512

    /// A ring of `limit` slots, `count` of them from `head` initialized.
    private let storages: UnsafeMutablePointer<HTTP2HeaderList.Storage>
    private let capacities: UnsafeMutablePointer<Int>
    private var head = 0
    private var count = 0

    init() {
        storages = .allocate(capacity: Self.limit)
        capacities = .allocate(capacity: Self.limit)
    }

    deinit {
        for offset in 0..<count { (storages + (head + offset) % Self.limit).deinitialize(count: 1) }
        storages.deallocate()
        capacities.deallocate()
    }

    /// An empty list with room for `capacity` bytes: the oldest storage kept, when it is
    /// free again, else a new one.
    mutating func list(reservingCapacity capacity: Int) -> HTTP2HeaderList {
        if count > 0, isKnownUniquelyReferenced(&storages[head]) {
            let storage = (storages + head).move()
            let kept = capacities[head]
            head = (head &+ 1) & (Self.limit &- 1)
            count &-= 1
            if kept >= capacity { return HTTP2HeaderList(reusing: storage, capacity: kept) }
        }
        return HTTP2HeaderList(reservingCapacity: capacity)
    }

    /// `list` is handed out: its storage is kept (the oldest kept let go when full).
    mutating func handedOut(_ list: HTTP2HeaderList) {
        guard let storage = list.storage, list.storageCapacity <= Self.largestRecycled else { return }
        if count == Self.limit {
            (storages + head).deinitialize(count: 1)
            head = (head &+ 1) & (Self.limit &- 1)
            count &-= 1
        }
        let tail = (head &+ count) & (Self.limit &- 1)
        (storages + tail).initialize(to: storage)
        capacities[tail] = list.storageCapacity
        count &+= 1
    }
}
