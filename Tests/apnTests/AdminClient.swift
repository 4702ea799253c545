import APNAdmin
import Foundation
import Glibc
import Testing

/// A client of an `--admin` listener (`apn bridge`, `apn feedback-service`, `apn mock-gateway`),
/// shared by their tests: one request per connection, a strict reading of the Prometheus text
/// format (and `promtool check metrics` where Debian's `prometheus` is installed), a sample's
/// value, and the readiness a stopping process answers.
enum AdminClient {
    /// The port of a start line's `"admin":"HOST:PORT"`.
    static func port(_ address: String?) throws -> UInt16 {
        try #require(address?.split(separator: ":").last.flatMap { UInt16($0) }, "not HOST:PORT: \(address ?? "nil")")
    }

    /// One request on a fresh connection; the status and the body (the server closes).
    static func get(_ port: UInt16, _ request: String) throws -> (status: Int, body: String) {
        try #require(exchange(port, request), "nothing listens on 127.0.0.1:\(port)")
    }

    /// `GET path`: the status and the body.
    static func get(_ port: UInt16, path: String) throws -> (status: Int, body: String) {
        try get(port, "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    }

    /// One request, or nil when the connection is refused (the listener has closed). Sent
    /// without SIGPIPE: a listener closing meanwhile must not end the test runner.
    static func exchange(_ port: UInt16, _ request: String) -> (status: Int, body: String)? {
        guard let descriptor = PlainSockets.connectIfListening(port: port) else { return nil }
        defer { close(descriptor) }
        let bytes = Array(request.utf8)
        _ = bytes.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        var response: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4_096)
        var pollEntry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        while poll(&pollEntry, 1, 10_000) > 0 {
            let count = read(descriptor, &buffer, buffer.count)
            guard count > 0 else { break }
            response += buffer[..<count]
        }
        let text = String(decoding: response, as: UTF8.self)
        let status = text.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        let body = text.range(of: "\r\n\r\n").map { String(text[$0.upperBound...]) } ?? ""
        return (status, body)
    }

    /// The value of the sample written exactly `sample` (`name` or `name{label="value",…}`)
    /// in `metrics`, or nil when there is none.
    static func value(_ metrics: String, _ sample: String) -> Double? {
        for line in metrics.split(separator: "\n") where line.hasPrefix(sample + " ") {
            return Double(line.dropFirst(sample.count + 1))
        }
        return nil
    }

    /// After a stop signal to `process`, which serves `--admin` on `port`: polls `/readyz`
    /// until the listener is gone, expecting 200 (the signal not handled yet) and then only
    /// 503 `{"reason":"stopping"}` (or no answer: closed mid-request); then the process exits
    /// with 0 (its standard error returned) and nothing listens on the port.
    static func expectStops(_ process: ApnProcess, adminPort port: UInt16) throws -> String {
        var stopping = false
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline, let (status, body) = exchange(port, "GET /readyz HTTP/1.1\r\n\r\n") {
            if status == 503 {
                #expect(body == #"{"reason":"stopping"}"# + "\n")
                stopping = true
            } else if status != 0 {
                #expect(status == 200 && !stopping, "ready again after 503: \(status)")
            }
        }
        let (status, standardError) = try process.waitForExit()
        #expect(status == 0, "\(standardError)")
        #expect(exchange(port, "GET /healthz HTTP/1.1\r\n\r\n") == nil, "the listener is gone with the process")
        return standardError
    }

    /// A strict reading of the text format: every family's HELP and TYPE before its samples,
    /// families not interleaved, every sample `name{label="value",…} number`; a histogram's
    /// samples `_bucket` (with `le`, cumulative, ending `+Inf`), `_sum` and `_count` (the
    /// `+Inf` bucket's count); then `promtool check metrics` where installed.
    static func checkExposition(_ text: String) throws {
        var seen: Set<String> = []
        var current: String?
        var histogram = false
        // The running bucket count of the histogram series being read, by its other labels.
        var lastBucket: [String: (bound: Double, count: Double)] = [:]
        let sample = #/^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\]|\\.)*",?)*\})? (-?[0-9.eE+]+|NaN|\+Inf|-Inf)$/#
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
            if line.hasPrefix("# HELP ") {
                let name = String(line.dropFirst(7).split(separator: " ")[0])
                #expect(!seen.contains(name), "\(name) described twice")
                seen.insert(name)
                current = name
            } else if line.hasPrefix("# TYPE ") {
                let words = line.split(separator: " ").map(String.init)
                #expect(words.dropFirst(2).first == current, "TYPE after its HELP: \(line)")
                #expect(["counter", "gauge", "histogram"].contains(words.last ?? ""), "a known type: \(line)")
                histogram = words.last == "histogram"
                lastBucket = [:]
            } else {
                let match = try #require(try sample.wholeMatch(in: String(line)), "not a sample: \(line)")
                let name = String(match.1)
                guard histogram, let family = current else {
                    #expect(name == current, "a sample outside its family: \(line)")
                    continue
                }
                try checkHistogramSample(String(line), name: name, family: family, lastBucket: &lastBucket)
            }
        }
        #expect(text.hasSuffix("\n"))
        #expect(lastBucket.values.allSatisfy { $0.bound == -1 }, "every histogram series ends with its _count")
        let promtool = "/usr/bin/promtool"
        guard FileManager.default.isExecutableFile(atPath: promtool) else { return }
        let check = try ApnProcess(["check", "metrics"], input: Array(text.utf8), executable: promtool)
        let (status, standardError) = try check.waitForExit()
        let output = try check.remainingLines()
        #expect(status == 0, "promtool: \(standardError) \(output)")
    }

    /// One sample of histogram `family`: buckets cumulative by series up to `+Inf`, then
    /// `_sum`, then `_count` equal to the `+Inf` bucket (marked done with bound -1).
    private static func checkHistogramSample(
        _ line: String, name: String, family: String, lastBucket: inout [String: (bound: Double, count: Double)]
    ) throws {
        let labelText = line.firstIndex(of: "{").map { String(line[$0...].prefix { $0 != "}" }) } ?? ""
        let value = try #require(Double(line.split(separator: " ").last!.replacingOccurrences(of: "+Inf", with: "inf")))
        let le = #/le="([^"]*)",?/#
        var series = labelText.replacing(le, with: "")
        while series.hasSuffix(",") { series.removeLast() }
        switch name {
        case family + "_bucket":
            let bound = try #require(try le.firstMatch(in: labelText), "a bucket without le: \(line)").1
            let upper = bound == "+Inf" ? Double.infinity : try #require(Double(bound))
            if let last = lastBucket[series] {
                #expect(last.bound != -1 && upper > last.bound && value >= last.count, "buckets ascend, cumulative: \(line)")
            }
            lastBucket[series] = (upper, value)
        case family + "_sum":
            #expect(lastBucket[series]?.bound == .infinity, "_sum after the +Inf bucket: \(line)")
        case family + "_count":
            #expect(lastBucket[series]?.bound == .infinity && lastBucket[series]?.count == value, "_count is the +Inf bucket: \(line)")
            lastBucket[series] = (-1, value)
        default:
            Issue.record("a sample outside its histogram family \(family): \(line)")
        }
    }
}
