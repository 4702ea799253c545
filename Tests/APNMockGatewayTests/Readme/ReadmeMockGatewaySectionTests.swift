import Foundation
import APNTestSupport
import APNTestTraits
import Testing

/// docs/MOCKS.md, "Using MockGateway from your tests": its Swift block is the example file
/// (compiled and run in this target), and the products its manifest lines name are ones
/// `Package.swift` declares.
@Suite(.threadPerTest) struct ReadmeMockGatewaySectionTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    static func text(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    /// The page's text after its title, up to its next heading of any level (it has none).
    static func section() throws -> Substring {
        let page = try text("docs/MOCKS.md")
        let start = try #require(page.range(of: "# Using MockGateway from your tests\n"))
        let end = page.range(of: "\n#", range: start.upperBound..<page.endIndex)?.lowerBound ?? page.endIndex
        return page[start.upperBound..<end]
    }

    /// The lines of the first fenced block opening with `fence` in `text`.
    static func block(_ fence: String, in text: Substring) throws -> [Substring] {
        let open = try #require(text.range(of: fence + "\n"))
        let close = try #require(text.range(of: "\n```", range: open.upperBound..<text.endIndex))
        return text[open.upperBound..<close.lowerBound].split(separator: "\n", omittingEmptySubsequences: false)
    }

    @Test("the section's Swift block is the example file, character for character")
    func swiftBlockIsTheExample() throws {
        let source = try Self.text("Tests/APNMockGatewayTests/Readme/ReadmeMockGatewayExample.swift")
        let lines = source.split(separator: "\n", omittingEmptySubsequences: false)
        let begin = try #require(lines.firstIndex { $0 == "// docs/MOCKS.md: MockGateway example (begin)" })
        let end = try #require(lines.firstIndex { $0 == "// docs/MOCKS.md: MockGateway example (end)" })
        #expect(try Self.block("```swift", in: Self.section()) == Array(lines[(begin + 1)..<end]))
    }

    @Test("the manifest lines depend on products Package.swift declares, APNMockGateway among them")
    func manifestNamesDeclaredProducts() throws {
        let manifest = try Self.block("```", in: Self.section()).joined(separator: "\n")
        let named = manifest.matches(of: /\.product\(name: "(\w+)", package: "swift-apn"\)/).map { String($0.1) }
        #expect(named.contains("APNMockGateway") && named.contains("APN"), "\(manifest)")
        let package = try Self.text("Package.swift")
        let declared = Set(package.matches(of: /\.library\(name: "(\w+)", targets: \["(\w+)"\]\)/).map { String($0.1) })
        #expect(Set(named).isSubset(of: declared), "declared: \(declared.sorted())")
    }
}
