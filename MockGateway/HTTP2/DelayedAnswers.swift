/// The answers a connection holds back under ``HTTP2MockGateway/Faults/responseDelay``,
/// each with the time it is due, earliest first: the connection's timer list. Pure
/// bookkeeping; every time is given.
struct DelayedAnswers {
    private var entries: [(due: ContinuousClock.Instant, answer: Answer)] = []
    private var head = 0

    var isEmpty: Bool { head == entries.count }

    /// When the earliest answer is due; `nil` when none is held.
    var nextDue: ContinuousClock.Instant? { isEmpty ? nil : entries[head].due }

    /// Holds `answer` until `due`. The delay is the same for every answer unless the faults
    /// change it, so the place is almost always the end; a shorter delay finds its place
    /// further forward.
    mutating func hold(_ answer: Answer, until due: ContinuousClock.Instant) {
        var index = entries.count
        while index > head && entries[index - 1].due > due { index -= 1 }
        entries.insert((due, answer), at: index)
    }

    /// Takes the earliest answer if it is due at `now`.
    mutating func popDue(at now: ContinuousClock.Instant) -> Answer? {
        guard let due = nextDue, due <= now else { return nil }
        let answer = entries[head].answer
        head += 1
        if head == entries.count {
            entries.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 1024 && head * 2 >= entries.count {
            entries.removeSubrange(0..<head)
            head = 0
        }
        return answer
    }
}
