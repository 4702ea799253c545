/// How long a client's I/O loop may sleep in `poll()` before its next deadline: the one
/// rule both loops (``ConnectionLoop``, ``ProviderLoop``) turn a deadline into a timeout by.
/// Pure, so its table is tested without a thread or a clock.
package enum PollTimeout {
    /// Milliseconds from `now` until `deadline`, rounded up so the loop never wakes just
    /// before it; 0 when it is due; -1 (sleep until woken) for none. On a manual clock
    /// (`manual`), time moves only by `advance`, which posts to the inbox and so wakes the
    /// loop: only a deadline already due needs a timeout.
    package static func milliseconds(until deadline: Timestamp?, now: Timestamp, manual: Bool) -> Int32 {
        guard let deadline else { return -1 }
        let nanoseconds = deadline.nanoseconds &- now.nanoseconds
        if nanoseconds <= 0 { return 0 }
        if manual { return -1 }
        // Rounded up without adding first, which would overflow for a deadline far away.
        let (milliseconds, rest) = nanoseconds.quotientAndRemainder(dividingBy: 1_000_000)
        return Int32(clamping: rest == 0 ? milliseconds : milliseconds + 1)
    }

    /// The shorter of two timeouts, where -1 means none.
    package static func earlier(_ first: Int32, _ second: Int32) -> Int32 {
        if first < 0 { return second }
        if second < 0 { return first }
        return min(first, second)
    }
}
