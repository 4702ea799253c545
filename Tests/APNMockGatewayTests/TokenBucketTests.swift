import APNTestSupport
import APNTestTraits
import APNMockGateway
import Testing

/// The read-rate budget, driven by explicit instants: no clock, no waiting.
@Suite(.threadPerTest) struct TokenBucketTests {
    let start = ContinuousClock.now

    @Test func startsFullWithTenMillisecondsWorthAtLeastOne() {
        #expect(TokenBucket.defaultBurst(rate: 1_000) == 10)
        #expect(TokenBucket.defaultBurst(rate: 50) == 1)
        let bucket = TokenBucket(rate: 1_000, now: start)
        #expect(bucket.burst == 10)
        #expect(bucket.available(at: start) == 10)
        #expect(bucket.nextToken(after: start) == start)
    }

    @Test func refillsOneTokenAnIntervalAfterItIsSpent() {
        var bucket = TokenBucket(rate: 1_000, now: start)
        bucket.take(10, at: start)
        #expect(bucket.available(at: start) == 0)
        #expect(bucket.nextToken(after: start) == start + .milliseconds(1))
        #expect(bucket.available(at: start + .microseconds(999)) == 0)
        #expect(bucket.available(at: start + .milliseconds(1)) == 1)
        #expect(bucket.available(at: start + .milliseconds(7)) == 7)
    }

    @Test func savesNoMoreThanTheBurst() {
        var bucket = TokenBucket(rate: 1_000, burst: 4, now: start)
        let later = start + .seconds(3600)
        #expect(bucket.available(at: later) == 4)
        bucket.take(4, at: later)
        // The hour of idleness saved nothing beyond the burst.
        #expect(bucket.available(at: later) == 0)
        #expect(bucket.nextToken(after: later) == later + .milliseconds(1))
    }

    @Test func processesTheRateEachSecondWhenAlwaysBusy() {
        var bucket = TokenBucket(rate: 1_000, now: start)
        var now = start
        var processed = 0
        // A connection that always has work: take what is available, wait for the next token.
        while now <= start + .seconds(1) {
            let granted = bucket.available(at: now)
            bucket.take(granted, at: now)
            processed += granted
            now = bucket.nextToken(after: now)
        }
        #expect(processed == 10 + 1_000)  // the burst it started with, then the rate
    }

    @Test func keepsRatesWithinWhatItCanCount() {
        #expect(TokenBucket(rate: 0, now: start).rate == 1)
        #expect(TokenBucket(rate: -5, now: start).rate == 1)
        #expect(TokenBucket(rate: .max, now: start).rate == TokenBucket.maximumRate)
        #expect(TokenBucket(rate: 10, burst: 0, now: start).burst == 1)
    }
}
