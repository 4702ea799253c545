import APNTestSupport
import APNTestTraits
import Foundation
import Testing

/// README snippets must compile: each ```swift block of README.md and of the pages in
/// `docs/` stands verbatim (minus its import lines and indentation) in a test file or an
/// example (`Examples/`), where it is compiled and run.
@Suite(.threadPerTest) struct ReadmeSnippetTests {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func swiftBlocks(in markdown: String) -> [[String]] {
        var blocks: [[String]] = []
        var current: [String]?
        for line in markdown.components(separatedBy: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if current == nil, trimmed == "```swift" {
                current = []
            } else if current != nil, trimmed == "```" {
                blocks.append(current!)
                current = nil
            } else if current != nil {
                current!.append(line)
            }
        }
        return blocks
    }

    /// The lines that must appear in a test: all but imports and blank lines, trimmed.
    static func significantLines(_ lines: [String]) -> [String] {
        lines.map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("import ") }
    }

    static func testSources() throws -> [(name: String, lines: [String])] {
        let files = ["Tests", "Examples"].flatMap { folder in
            FileManager.default.enumerator(at: repository.appendingPathComponent(folder), includingPropertiesForKeys: nil)?
                .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" } ?? []
        }
        return try files.map { url in
            (url.lastPathComponent, significantLines(try String(contentsOf: url, encoding: .utf8)
                .components(separatedBy: "\n")))
        }
    }

    /// README.md, then every Markdown page in `docs/`, by name.
    static func documents() throws -> [(name: String, text: String)] {
        let docs = try FileManager.default.contentsOfDirectory(atPath: repository.appendingPathComponent("docs").path)
            .filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
        return try (["README.md"] + docs).map { name in
            (name, try String(contentsOf: repository.appendingPathComponent(name), encoding: .utf8))
        }
    }

    @Test func everySwiftSnippetInTheReadmeIsCompiledByATest() throws {
        let documents = try Self.documents()
        #expect(Self.swiftBlocks(in: documents[0].text).count >= 2, "README lost its snippets")
        let library = try #require(documents.first { $0.name == "docs/LIBRARY.md" })
        #expect(Self.swiftBlocks(in: library.text).count >= 10, "docs/LIBRARY.md lost its snippets")
        let sources = try Self.testSources()
        for (name, text) in documents {
            for block in Self.swiftBlocks(in: text) {
                let wanted = Self.significantLines(block)
                let home = sources.first { source in
                    source.lines.indices.contains { start in
                        source.lines[start...].starts(with: wanted)
                    }
                }
                #expect(home != nil, "\(name) snippet not found verbatim in any test:\n\(block.joined(separator: "\n"))")
            }
        }
    }
}
