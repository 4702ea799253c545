import APNSupport
import APNTLS
import Foundation

/// A bad command line for a scenario.
struct BenchUsageError: Error, CustomStringConvertible {
    let description: String
}

/// Options every scenario understands, and the whole-number options one scenario adds.
struct BenchOptions {
    /// Operations per measured round.
    var operations: Int
    /// Measured rounds; the best and the median are printed.
    var rounds = 5
    /// Run only the measurement with this label prefix (e.g. `precompiled`).
    var only: String?
    /// The scenario's own options (`--latency-ms 5` → `["--latency-ms": 5]`).
    var values: [String: Int] = [:]
    /// The scenario's own options that take a word (`--auth certificate`).
    var words: [String: String] = [:]
    /// The scenario's own options that take a path (`--certs DIR`).
    var paths: [String: String] = [:]

    /// Reads `arguments`; `extra` names the whole-number options the scenario takes beside
    /// `--operations`, `--rounds` and `--only`, `choices` those taking one of a few words,
    /// `pathOptions` those taking a path.
    init(
        _ arguments: [String], defaultOperations: Int, extra: Set<String> = [], choices: [String: [String]] = [:],
        pathOptions: Set<String> = []
    ) throws {
        operations = defaultOperations
        var rest = arguments[...]
        while let flag = rest.popFirst() {
            if flag == "--only", let value = rest.popFirst() {
                only = value
                continue
            }
            if pathOptions.contains(flag) {
                guard let value = rest.popFirst(), !value.isEmpty else { throw BenchUsageError(description: "\(flag) needs a path") }
                paths[flag] = value
                continue
            }
            if let allowed = choices[flag] {
                guard let value = rest.popFirst(), allowed.contains(value) else {
                    throw BenchUsageError(description: "\(flag) takes one of: \(allowed.joined(separator: ", "))")
                }
                words[flag] = value
                continue
            }
            guard let value = rest.popFirst(), let number = Int(value), number >= 0 else {
                throw BenchUsageError(description: "\(flag) needs a whole number")
            }
            switch flag {
            case "--frames", "--operations", "--rounds":
                guard number > 0 else { throw BenchUsageError(description: "\(flag) needs a positive whole number") }
                if flag == "--rounds" { rounds = number } else { operations = number }
            case _ where extra.contains(flag): values[flag] = number
            default: throw BenchUsageError(description: "unknown option \(flag)")
            }
        }
    }
}

extension BenchOptions {
    /// Whether the measurement labelled `label` should run.
    func includes(_ label: String) -> Bool {
        guard let only else { return true }
        return label == only || label.hasPrefix(only + " ")
    }
}

/// Runs `body` once unmeasured, then `rounds` times measured; returns seconds per round.
func measureRounds(_ rounds: Int, _ body: () -> Void) -> [Double] {
    body()
    let clock = ContinuousClock()
    return (0..<rounds).map { _ in
        let elapsed = clock.measure(body)
        return elapsed.inSeconds
    }
}

/// One printed figure: `label  best  median  unit`.
func report(_ label: String, operations: Int, seconds: [Double], unit: String, bytesPerOperation: Int? = nil) {
    let sorted = seconds.sorted()
    let best = Double(operations) / sorted[0]
    let median = Double(operations) / sorted[sorted.count / 2]
    var line = "\(label.padding(toLength: 34, withPad: " ", startingAt: 0))"
        + " best \(format(best)) \(unit)   median \(format(median)) \(unit)"
    if let bytes = bytesPerOperation {
        line += "   (\(format(best * Double(bytes))) bytes/s best)"
    }
    print(line)
}

func format(_ value: Double) -> String {
    switch value {
    case 1e9...: String(format: "%.2fG", value / 1e9)
    case 1e6...: String(format: "%.2fM", value / 1e6)
    case 1e3...: String(format: "%.1fk", value / 1e3)
    default: String(format: "%.1f", value)
    }
}

/// Keeps a computed value alive so the optimizer cannot drop the work behind it.
@inline(never)
func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}

extension Duration {
    /// The duration in seconds, for rates.
    var inSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}

/// Runs `body` to completion from synchronous code (the benchmarks' threads are not tasks).
func blocking<T: Sendable>(_ body: @escaping @Sendable () async -> T) -> T {
    let result = Handoff<T>()
    Task { result.put(await body()) }
    return result.take()
}
