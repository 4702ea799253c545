/// The bytes a connection has read but that are still "on the wire" under
/// a latency (``BinaryConnectionHandler/inputLatency()``; the mock's `Faults.latency`):
/// each read's bytes with the time they arrived, released in
/// order once `latency` has passed since their arrival.
///
/// Pure bookkeeping: it never reads a clock, every time is given, so tests drive it with
/// explicit instants. The latency is given on each call because the handler may change it
/// while bytes are held.
///
/// Bounded: the connection stops reading while ``isFull``, so it holds at most ``limit``
/// bytes plus one read's worth.
package struct DelayLine: Sendable {
    /// One read's bytes and when they arrived.
    private struct Chunk: Sendable {
        var bytes: [UInt8]
        var arrival: ContinuousClock.Instant
    }

    /// How many bytes make the line full.
    package let limit: Int
    /// The chunks held, oldest first, from `head` on; the ones before `head` were released.
    private var chunks: [Chunk] = []
    private var head = 0
    /// The bytes held.
    package private(set) var byteCount = 0

    /// An empty line that is full at `limit` bytes.
    package init(limit: Int) {
        self.limit = limit
    }

    /// Whether nothing is held.
    package var isEmpty: Bool { head == chunks.count }

    /// Whether the line holds `limit` bytes or more: read no more until some are released.
    package var isFull: Bool { byteCount >= limit }

    /// Holds `bytes` (one read) that arrived at `arrival`. Arrivals are given in order.
    package mutating func append(_ bytes: some Collection<UInt8>, arrivedAt arrival: ContinuousClock.Instant) {
        guard !bytes.isEmpty else { return }
        chunks.append(Chunk(bytes: Array(bytes), arrival: arrival))
        byteCount += bytes.count
    }

    /// When the oldest held bytes fall due under `latency`; `nil` when nothing is held.
    package func dueTime(latency: Duration) -> ContinuousClock.Instant? {
        isEmpty ? nil : chunks[head].arrival + latency
    }

    /// Releases the oldest held bytes if they arrived at least `latency` before `now`.
    package mutating func popDue(at now: ContinuousClock.Instant, latency: Duration) -> [UInt8]? {
        guard let due = dueTime(latency: latency), due <= now else { return nil }
        return popFirst()
    }

    /// Releases the oldest held bytes whenever they arrived (to discard them).
    package mutating func popFirst() -> [UInt8]? {
        guard !isEmpty else { return nil }
        let bytes = chunks[head].bytes
        chunks[head].bytes = []
        head += 1
        byteCount -= bytes.count
        if head == chunks.count {
            chunks.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 64, head * 2 >= chunks.count {
            // Drop the released prefix once it dominates, so a line that never empties
            // does not grow its array without bound.
            chunks.removeSubrange(0..<head)
            head = 0
        }
        return bytes
    }
}
