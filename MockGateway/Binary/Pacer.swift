/// The faults that shape how one connection reads — ``MockGateway/Faults/latency`` and
/// ``MockGateway/Faults/readRate`` — as that connection follows them, with its token
/// bucket. Re-read from the ledger only when ``SharedState/faultsRevision`` moved, so with
/// neither set a read costs one atomic load more than before.
struct Pacer {
    /// The latency now in force (never negative).
    private(set) var latency: Duration = .zero
    /// The read-rate budget, when a rate is set.
    private(set) var bucket: TokenBucket?
    private var rate: Int?
    /// The revision last read; -1 so that the first ``refresh(from:)`` reads.
    private var revision = -1

    /// Picks up changed faults; a changed rate starts a full bucket, an unchanged one keeps
    /// its tokens.
    mutating func refresh(from shared: SharedState) {
        let current = shared.faultsRevision
        guard current != revision else { return }
        revision = current
        let (latency, rate) = shared.read { ($0.faults.latency, $0.faults.readRate) }
        self.latency = max(.zero, latency)
        if rate != self.rate {
            self.rate = rate
            bucket = rate.map { TokenBucket(rate: $0, now: .now) }
        }
    }

    /// Spends a token for each of `count` notifications just judged.
    mutating func spend(_ count: Int) {
        bucket?.take(count, at: .now)
    }
}
