import APNTestSupport
import APNTestTraits
import APNGatewayServer
import Testing

/// The bytes held while they wait out the latency, driven by explicit instants.
@Suite(.threadPerTest) struct DelayLineTests {
    let start = ContinuousClock.now
    let latency: Duration = .milliseconds(100)

    @Test func releasesBytesOnlyOnceTheLatencyHasPassed() {
        var line = DelayLine(limit: 1 << 20)
        line.append([1, 2, 3], arrivedAt: start)
        #expect(line.dueTime(latency: latency) == start + latency)
        #expect(line.popDue(at: start + .milliseconds(99), latency: latency) == nil)
        #expect(line.popDue(at: start + latency, latency: latency) == [1, 2, 3])
        #expect(line.isEmpty)
        #expect(line.dueTime(latency: latency) == nil)
    }

    @Test func releasesReadsInOrderEachWhenDue() {
        var line = DelayLine(limit: 1 << 20)
        line.append([1], arrivedAt: start)
        line.append([2, 2], arrivedAt: start + .milliseconds(10))
        let now = start + .milliseconds(105)
        #expect(line.popDue(at: now, latency: latency) == [1])
        #expect(line.popDue(at: now, latency: latency) == nil)
        #expect(line.dueTime(latency: latency) == start + .milliseconds(110))
        // A latency changed while bytes are held applies to them.
        #expect(line.popDue(at: now, latency: .zero) == [2, 2])
        #expect(line.byteCount == 0)
    }

    @Test func isFullAtItsLimitUntilBytesLeave() {
        var line = DelayLine(limit: 10)
        line.append([UInt8](repeating: 7, count: 6), arrivedAt: start)
        #expect(!line.isFull)
        line.append([UInt8](repeating: 8, count: 6), arrivedAt: start)
        #expect(line.isFull)
        #expect(line.byteCount == 12)
        #expect(line.popFirst() == [UInt8](repeating: 7, count: 6))  // discarding ignores due times
        #expect(!line.isFull)
        line.append([], arrivedAt: start)
        #expect(line.byteCount == 6)
    }

    @Test func keepsOrderAcrossManyReadsWhileNeverEmpty() {
        var line = DelayLine(limit: 1 << 20)
        var expected: [UInt8] = []
        var released: [UInt8] = []
        for round in 0..<300 {
            line.append([UInt8(truncatingIfNeeded: round)], arrivedAt: start + .milliseconds(round))
            expected.append(UInt8(truncatingIfNeeded: round))
            // Two reads released for every three held: the released prefix is dropped now and then.
            if !round.isMultiple(of: 3), let bytes = line.popDue(at: start + .milliseconds(round), latency: .zero) {
                released += bytes
            }
        }
        while let bytes = line.popFirst() { released += bytes }
        #expect(released == expected)
    }
}
