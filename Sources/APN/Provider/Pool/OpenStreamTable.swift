/// The streams open on one client connection, by stream id: a ``ProviderEntryTable`` keyed
/// by the stream's number among the client's streams. A client's stream ids are odd and
/// rise (RFC 9113 §5.1.1), and streams close roughly in the order they opened, so finding
/// one is arithmetic, not a hash.
struct OpenStreamTable<Value>: ~Copyable {
    private var table = ProviderEntryTable<Value>()

    /// Streams in the table.
    var count: Int { table.count }
    var isEmpty: Bool { table.count == 0 }

    /// The value of stream `id`, if it is open.
    subscript(id: Int32) -> Value? {
        Self.key(id).flatMap { table[$0] }
    }

    /// Adds stream `id`, an odd id above every id added before.
    mutating func insert(_ value: consuming Value, for id: Int32) {
        guard let key = Self.key(id) else { preconditionFailure("stream \(id) is not a client's") }
        table.insert(consume value, at: key)
    }

    /// Removes stream `id`; its value, or nil when it was not open.
    mutating func removeValue(forKey id: Int32) -> Value? {
        Self.key(id).flatMap { table.remove($0) }
    }

    /// Every open stream's value, oldest stream first.
    var values: [Value] { table.values }

    /// Removes every stream.
    mutating func removeAll() { table.removeAll() }

    /// Stream 1 is 1, stream 3 is 2, …; an even id (never a client's) has none.
    private static func key(_ id: Int32) -> Int? {
        id > 0 && id % 2 == 1 ? Int(id / 2) + 1 : nil
    }
}
