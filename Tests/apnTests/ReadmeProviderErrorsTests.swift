import Foundation
import Testing
import APNTestSupport
import APNTestTraits

/// docs/LIBRARY.md's Provider error-handling block, built as the top-level `main.swift` of
/// `Examples/ProviderErrors` (the `provider-errors-example` product), run against
/// `apn mock-gateway --http2` with one token for each branch.
@Suite("docs/LIBRARY.md: Provider error handling", .threadPerTest, .ownsChildProcesses)
struct ReadmeProviderErrorsTests {
    static let delivered = String(repeating: "aa", count: 32)
    static let refused = String(repeating: "bb", count: 32)
    static let unregistered = String(repeating: "cc", count: 32)
    static let disallowed = String(repeating: "dd", count: 32)

    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The lines of the first ```swift block after `marker` in docs/LIBRARY.md.
    static func libraryPageBlock(after marker: String) throws -> [Substring] {
        let page = try String(contentsOf: root.appendingPathComponent("docs/LIBRARY.md"), encoding: .utf8)
        let start = try #require(page.range(of: marker))
        let open = try #require(page.range(of: "```swift\n", range: start.upperBound..<page.endIndex))
        let close = try #require(page.range(of: "\n```", range: open.upperBound..<page.endIndex))
        return page[open.upperBound..<close.lowerBound].split(separator: "\n", omittingEmptySubsequences: false)
    }

    /// The example's lines between its docs/LIBRARY.md markers, with their common indentation removed.
    static func exampleBlock() throws -> [Substring] {
        let source = try String(
            contentsOf: root.appendingPathComponent("Examples/ProviderErrors/main.swift"), encoding: .utf8)
        let lines = source.split(separator: "\n", omittingEmptySubsequences: false)
        let begin = try #require(lines.firstIndex { $0.contains("// docs/LIBRARY.md: handling errors (begin)") })
        let end = try #require(lines.firstIndex { $0.contains("// docs/LIBRARY.md: handling errors (end)") })
        let block = lines[(begin + 1)..<end]
        let indent = block.filter { !$0.isEmpty }.map { $0.prefix { $0 == " " }.count }.min() ?? 0
        return block.map { $0.dropFirst(indent) }
    }

    @Test("docs/LIBRARY.md's block is the example's, character for character")
    func libraryPageShowsTheExample() throws {
        #expect(try Self.libraryPageBlock(after: "<!-- provider-errors-example") == Self.exampleBlock())
    }

    @Test("each branch of the example runs: delivered, a dead token, another refusal, not a token")
    func theExampleRuns() throws {
        let fixture = try SendFixture(gatewayArguments: [
            "--http2", "--http2-reason", "\(Self.refused):BadDeviceToken",
            "--http2-unregistered", "\(Self.unregistered):1700000000000",
            "--http2-reason", "\(Self.disallowed):TopicDisallowed",
        ])
        let example = try ApnProcess(
            [Self.delivered, Self.refused, Self.unregistered, Self.disallowed, "not-hex"],
            environment: [
                "EXAMPLE_ADDRESS": try #require(fixture.http2Address),
                "EXAMPLE_CA": (fixture.certs as NSString).appendingPathComponent("ca.pem"),
                "EXAMPLE_P8": (fixture.certs as NSString).appendingPathComponent("AuthKey_MOCKKEY001.p8"),
                "EXAMPLE_KEY_ID": "MOCKKEY001", "EXAMPLE_TEAM_ID": "MOCKTEAM01",
            ],
            executable: "provider-errors-example")
        let (status, standardError) = try example.waitForExit(timeout: 60)
        #expect(status == 0, "\(standardError)")
        let lines = try example.remainingLines()
        #expect(lines.count == 5, "\(lines)")
        #expect(lines.first?.hasPrefix("delivered ") == true)
        #expect(lines.dropFirst().first == "stop sending to \(Self.refused)")
        #expect(lines.dropFirst(2).first == "stop sending to \(Self.unregistered)")
        #expect(lines.dropFirst(3).first == "not delivered: 400 TopicDisallowed")
        #expect(lines.dropFirst(4).first == "not a device token: not-hex")
        _ = try fixture.stop()
    }
}
