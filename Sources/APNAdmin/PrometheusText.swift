import Foundation

/// Metrics in the Prometheus text exposition format, version 0.0.4: for each metric a
/// `# HELP` and a `# TYPE` line, then its samples, `name{label="value",…} value`, label
/// values escaped (`\\`, `\"`, `\n`), one family's samples together.
package struct PrometheusText {
    /// A metric's type line.
    package enum Kind: String {
        case counter, gauge, histogram
    }

    /// The text so far.
    package private(set) var text = ""

    /// No metric yet.
    package init() {}

    /// Appends a family: `samples` are its label sets and values (one with no labels for a
    /// plain metric).
    package mutating func family(_ name: String, _ kind: Kind, help: String, _ samples: [([(String, String)], Double)]) {
        text += "# HELP \(name) \(Self.escapeHelp(help))\n# TYPE \(name) \(kind.rawValue)\n"
        for (labels, value) in samples {
            text += name
            if !labels.isEmpty {
                text += "{" + labels.map { "\($0.0)=\"\(Self.escapeLabel($0.1))\"" }.joined(separator: ",") + "}"
            }
            text += " " + Self.format(value) + "\n"
        }
    }

    /// Appends a histogram family: for each label set, its cumulative `_bucket{le=…}`
    /// samples (the last `+Inf`), `_sum` and `_count`.
    package mutating func histogram(
        _ name: String, help: String, _ series: [(labels: [(String, String)], buckets: [(bound: Double, count: Int)], sum: Double)]
    ) {
        text += "# HELP \(name) \(Self.escapeHelp(help))\n# TYPE \(name) histogram\n"
        for (labels, buckets, sum) in series {
            func sample(_ suffix: String, _ extra: [(String, String)], _ value: Double) {
                let all = labels + extra
                text += name + suffix
                if !all.isEmpty {
                    text += "{" + all.map { "\($0.0)=\"\(Self.escapeLabel($0.1))\"" }.joined(separator: ",") + "}"
                }
                text += " " + Self.format(value) + "\n"
            }
            for (bound, count) in buckets {
                sample("_bucket", [("le", bound.isInfinite ? "+Inf" : Self.format(bound))], Double(count))
            }
            sample("_sum", [], sum)
            sample("_count", [], Double(buckets.last?.count ?? 0))
        }
    }

    /// A plain metric with one value.
    package mutating func single(_ name: String, _ kind: Kind, help: String, _ value: Double) {
        family(name, kind, help: help, [([], value)])
    }

    package static func escapeLabel(_ value: String) -> String {
        var out = ""
        for character in value {
            switch character {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.append(character)
            }
        }
        return out
    }

    package static func escapeHelp(_ value: String) -> String {
        value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\n", with: "\\n")
    }

    /// A sample value: integers without a fraction.
    package static func format(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }
}
