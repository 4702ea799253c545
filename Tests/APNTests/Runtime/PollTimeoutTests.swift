import APN
import Testing
import APNTestTraits

@Suite("Poll timeout: a deadline to a poll() timeout, the rule both client loops sleep by", .threadPerTest)
struct PollTimeoutTests {
    /// deadline (ns, nil: none), now (ns), manual clock, expected milliseconds.
    static let cases: [(Int64?, Int64, Bool, Int32)] = [
        (nil, 0, false, -1),  // no deadline: sleep until woken
        (nil, 0, true, -1),
        (5_000_000, 5_000_000, false, 0),  // due now
        (4_000_000, 5_000_000, false, 0),  // overdue
        (4_000_000, 5_000_000, true, 0),  // overdue on a manual clock too
        (5_000_001, 5_000_000, false, 1),  // a nanosecond away: rounded up, never early
        (6_000_000, 5_000_000, false, 1),  // exactly a millisecond
        (6_000_001, 5_000_000, false, 2),
        (1_005_000_000, 5_000_000, false, 1000),
        (1_005_000_000, 5_000_000, true, -1),  // manual: its advance wakes the loop instead
        (Int64.max, 0, false, Int32.max),  // far away: clamped
    ]

    @Test(arguments: cases)
    func millisecondsUntilTheDeadline(_ row: (Int64?, Int64, Bool, Int32)) {
        let (deadline, now, manual, expected) = row
        let timeout = PollTimeout.milliseconds(
            until: deadline.map { Timestamp(nanoseconds: $0) }, now: Timestamp(nanoseconds: now), manual: manual)
        #expect(timeout == expected)
    }

    /// first, second, the earlier (-1: none).
    static let earlierCases: [(Int32, Int32, Int32)] = [
        (-1, -1, -1), (-1, 10, 10), (10, -1, 10), (0, 10, 0), (25, 10, 10), (10, 10, 10),
    ]

    @Test(arguments: earlierCases)
    func theEarlierOfTwo(_ row: (Int32, Int32, Int32)) {
        #expect(PollTimeout.earlier(row.0, row.1) == row.2)
    }
}
