import Foundation

/// Where the golden payload vectors come from: the file named by `APN_GOLDEN_PAYLOADS`, or
/// the bundled node-apn 1.7.8 file in Fixtures/golden.
enum GoldenFile {
    /// The environment variable naming another vector file in the same format.
    static let environmentVariable = "APN_GOLDEN_PAYLOADS"

    /// The folder of the bundled vectors and their README.
    static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/golden")

    /// The bundled vectors.
    static let bundled = fixtures.appendingPathComponent("node-apn-1.7.8-payloads.jsonl")

    /// The file to replay: `APN_GOLDEN_PAYLOADS` when set and not empty, else ``bundled``.
    static var selected: URL {
        if let path = ProcessInfo.processInfo.environment[environmentVariable], !path.isEmpty {
            return URL(fileURLWithPath: path)
        }
        return bundled
    }

    /// The cases of `url`, one a line; blank lines are skipped.
    static func cases(at url: URL) throws -> [GoldenCase] {
        let text = try String(contentsOf: url, encoding: .utf8)
        var cases: [GoldenCase] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
        where !line.allSatisfy(\.isWhitespace) {
            cases.append(try GoldenCase(line: String(line), number: index + 1))
        }
        return cases
    }
}
