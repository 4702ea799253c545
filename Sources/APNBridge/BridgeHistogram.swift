/// A distribution counted in fixed buckets, as Prometheus histograms count: how many
/// observations fell at or under each bound, their sum and their number. Kept per tenant
/// in ``BridgeCounts``; merged by adding bucket by bucket (same bounds).
public struct BridgeHistogram: Sendable, Hashable {
    /// The buckets' upper bounds, ascending; a last bucket (+Inf) takes the rest.
    public let bounds: [Double]
    /// Observations per bucket, not cumulative: `bounds.count + 1` of them, the last for
    /// values above every bound.
    public private(set) var buckets: [Int]
    /// The sum of every observation.
    public private(set) var sum: Double = 0
    /// How many observations.
    public var count: Int { buckets.reduce(0, +) }

    /// An empty histogram with these upper bounds (ascending).
    public init(bounds: [Double]) {
        precondition(zip(bounds, bounds.dropFirst()).allSatisfy { $0 < $1 }, "bounds must ascend")
        self.bounds = bounds
        buckets = Array(repeating: 0, count: bounds.count + 1)
    }

    /// Counts `value` in the first bucket whose bound it does not exceed (found by halving:
    /// every forwarded notification's duration is observed).
    public mutating func observe(_ value: Double) {
        var index = 0
        var end = bounds.count
        while index < end {
            let middle = (index + end) / 2
            if value > bounds[middle] { index = middle + 1 } else { end = middle }
        }
        buckets[index] += 1
        sum += value
    }

    /// Adds `other`'s observations (the same bounds).
    public mutating func add(_ other: BridgeHistogram) {
        precondition(other.bounds == bounds, "histograms with different bounds")
        for index in buckets.indices { buckets[index] += other.buckets[index] }
        sum += other.sum
    }

    /// `(bound, observations at or under it)` for each bound, then `(+infinity, count)`:
    /// Prometheus' cumulative `le` buckets.
    public var cumulative: [(bound: Double, count: Int)] {
        var running = 0
        var result: [(bound: Double, count: Int)] = []
        for (index, bound) in (bounds + [.infinity]).enumerated() {
            running += buckets[index]
            result.append((bound, running))
        }
        return result
    }

    /// Upstream request durations in seconds: Prometheus' default bounds, 5 ms to 10 s.
    public static let upstreamSeconds = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

    /// Refusal distances in notifications (#40): how far past a refused notification a
    /// client had written, against resend caches of 100 (PyAPNs), 1,000 (node-apn's default)
    /// and more.
    public static let refusalDistanceNotifications: [Double] = [0, 10, 100, 500, 1_000, 5_000, 10_000, 50_000]
}
