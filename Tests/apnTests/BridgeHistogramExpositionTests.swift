import APNAdmin
import APNBridge
import Testing

/// #42: the bridge's histograms in the exposition format, against a literal vector and the
/// strict reading of the format (`promtool` where installed).
@Suite struct BridgeHistogramExpositionTests {
    @Test func aHistogramIsCumulativeBucketsThenSumAndCount() throws {
        var histogram = BridgeHistogram(bounds: [0.125, 1])
        for value in [0.0625, 0.125, 0.5, 3] { histogram.observe(value) }
        var text = PrometheusText()
        text.histogram("apn_t_seconds", help: "Took.", [([("tenant", "a")], histogram.cumulative, histogram.sum)])
        #expect(
            text.text == """
                # HELP apn_t_seconds Took.
                # TYPE apn_t_seconds histogram
                apn_t_seconds_bucket{tenant="a",le="0.125"} 2
                apn_t_seconds_bucket{tenant="a",le="1"} 3
                apn_t_seconds_bucket{tenant="a",le="+Inf"} 4
                apn_t_seconds_sum{tenant="a"} 3.6875
                apn_t_seconds_count{tenant="a"} 4

                """)
        try AdminClient.checkExposition(text.text)
    }
}
