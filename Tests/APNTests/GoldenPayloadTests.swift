import APN
import Foundation
import Testing
import APNTestSupport
import APNTestTraits

/// node-apn 1.7.8's own payloads (Fixtures/golden), replayed through `Notification`:
/// `swift test --filter Golden`. `APN_GOLDEN_PAYLOADS=FILE swift test --filter Golden`
/// replays another file in the same format.
@Suite("Golden payloads from node-apn 1.7.8", .threadPerTest)
struct GoldenPayloadTests {
    @Test("every case compiles to node-apn's JSON bytes and length, and trims as it did")
    func everyCase() throws {
        let url = GoldenFile.selected
        let cases = try GoldenFile.cases(at: url)
        #expect(!cases.isEmpty, "no cases in \(url.path)")
        var passed = 0
        var deliberate: [String] = []
        var javaScriptOnly: [String] = []
        for golden in cases {
            switch GoldenVerdict(golden) {
            case .passed:
                passed += 1
            case .failed(let message):
                let operations = golden.operations.map(\.description).joined(separator: "; ")
                let payload = golden.payload.map(\.description) ?? "null"
                Issue.record("case \(golden.id): payload \(payload), ops [\(operations)]\n\(message)")
            case .deliberate(let reason):
                deliberate.append("\(golden.id) (\(reason))")
            case .javaScriptOnly(let reason):
                javaScriptOnly.append("\(golden.id) (\(reason))")
            }
        }
        print(
            "golden \(url.lastPathComponent): \(cases.count) cases, \(passed) as node-apn, "
                + "\(deliberate.count) deliberate differences \(deliberate), "
                + "\(javaScriptOnly.count) JavaScript-only \(javaScriptOnly)")
    }

    @Test("the bundled file differs only in the cases its README lists, for the reason given")
    func documentedDifferences() throws {
        var skipped: Set<Int> = []
        for golden in try GoldenFile.cases(at: GoldenFile.bundled) {
            switch GoldenVerdict(golden) {
            case .deliberate, .javaScriptOnly: skipped.insert(golden.id)
            case .passed, .failed: break
            }
        }
        let readme = try String(
            contentsOf: GoldenFile.fixtures.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(skipped == Self.listedCases(in: readme))
    }

    /// The case ids in the last column of the README's table of deliberate differences.
    static func listedCases(in readme: String) -> Set<Int> {
        var ids: Set<Int> = []
        var inSection = false
        for line in readme.split(separator: "\n") {
            if line.hasPrefix("## ") {
                inSection = line.hasPrefix("## Deliberate differences")
            } else if inSection, line.hasPrefix("|"), let last = line.split(separator: "|").last {
                for word in last.split(whereSeparator: { !$0.isNumber }) {
                    if let id = Int(word) { ids.insert(id) }
                }
            }
        }
        return ids
    }

    @Test("trim()'s default fits the payload limit of a Connection with default options")
    func defaultTrimFitsDefaultConnection() throws {
        let options = Connection.Options()
        let limit = Notification.payloadLimit(for: options.format, voip: options.voip)
        #expect(Notification.defaultTrimLength == limit)
        let note = Notification().setAlertText(String(repeating: "word ", count: 200))
        #expect(note.trim() > 0)
        #expect(note.length() <= limit)
        try note.validate(for: options.format, voip: options.voip)
    }
}
