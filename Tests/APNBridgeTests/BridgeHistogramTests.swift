import APNBridge
import Testing

/// Prometheus-style buckets: a value on a bound counts in that bound's bucket.
@Suite("Bridge: histograms")
struct BridgeHistogramTests {
    @Test func aValueOnABoundCountsThereAndTheRestAboveTheLast() {
        var histogram = BridgeHistogram(bounds: [0, 10, 100])
        for value in [0.0, 1, 10, 10.5, 100, 1_000, 5_000] { histogram.observe(value) }
        #expect(histogram.buckets == [1, 2, 2, 2])
        #expect(histogram.count == 7 && histogram.sum == 6_121.5)
        #expect(histogram.cumulative.map(\.count) == [1, 3, 5, 7])
        #expect(histogram.cumulative.last?.bound == .infinity)
    }

    @Test func addingMergesBucketByBucket() {
        var first = BridgeHistogram(bounds: BridgeHistogram.upstreamSeconds)
        var second = first
        first.observe(0.001)
        second.observe(0.3)
        second.observe(60)
        first.add(second)
        #expect(first.count == 3 && first.buckets[0] == 1 && first.buckets[6] == 1 && first.buckets.last == 1)
    }
}
