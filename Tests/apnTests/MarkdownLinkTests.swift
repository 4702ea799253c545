import Foundation
import Testing

/// Every relative link in the repository's Markdown resolves (#28): first the parser against
/// literal Markdown, then the repository itself.
@Suite("Markdown links") struct MarkdownLinkTests {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test("inline links, images and reference definitions are found, with their lines")
    func linksAreFound() {
        let markdown = """
            # Title

            See [the protocol](docs/PROTOCOL.md) and ![a picture](images/a.png "A title").
            A link whose text spans
            two lines [goes
            here](other.md#part), and <https://example.com> is no inline link.
            [reference]: ../shared/notes.md
              [indented]: <with space.md> "title"
            [^1]: a footnote, not a definition
            [nested [brackets]](nested.md) and [balanced](file(1).md) and [escaped \\](x)](real.md)
            """
        #expect(
            MarkdownLinks.links(in: markdown) == [
                MarkdownLink(target: "docs/PROTOCOL.md", line: 3),
                MarkdownLink(target: "images/a.png", line: 3),
                MarkdownLink(target: "other.md#part", line: 6),
                MarkdownLink(target: "../shared/notes.md", line: 7),
                MarkdownLink(target: "with space.md", line: 8),
                MarkdownLink(target: "nested.md", line: 10),
                MarkdownLink(target: "file(1).md", line: 10),
                MarkdownLink(target: "real.md", line: 10),
            ])
    }

    @Test("links in fenced code blocks are not links; the lines after them are counted")
    func fencedCodeIsSkipped() {
        let markdown = """
            ```swift
            let a = [x](not-a-link.md)
            ```
            ~~~~
            [y](tilde.md)
            ```
            [z](still-code.md)
            ~~~~
              ```
              [indented](in-a-list.md)
              ```
            [after](after.md)
            """
        #expect(MarkdownLinks.links(in: markdown) == [MarkdownLink(target: "after.md", line: 12)])
    }

    @Test("links in code spans and HTML comments are not links")
    func codeSpansAndCommentsAreSkipped() {
        let markdown = """
            Write `[x](span.md)` or ``a `[y](double.md)` b`` and <!-- [c](comment.md)
            still the comment --> then [real](real.md).
            An unclosed ` backtick is literal: [also](also.md).
            """
        #expect(
            MarkdownLinks.links(in: markdown) == [
                MarkdownLink(target: "real.md", line: 2),
                MarkdownLink(target: "also.md", line: 3),
            ])
    }

    @Test("headings give GitHub's anchors: lowercase, spaces to '-', punctuation dropped, repeats numbered")
    func headingAnchors() {
        let markdown = """
            # The binary push protocol, and where swift-apn differs
            ## 4. The errorCallback situations
            ### node-apn's local codes
            ### The `apn` command line ###
            ## [Linked](https://example.com) heading_with_underscore
            ## Repeated
            ## Repeated
            ```
            # not a heading
            ```
            #not-a-heading-either
            <a id="explicit"></a>
            """
        #expect(
            MarkdownLinks.anchors(in: markdown) == [
                "the-binary-push-protocol-and-where-swift-apn-differs", "4-the-errorcallback-situations",
                "node-apns-local-codes", "the-apn-command-line", "linked-heading_with_underscore", "repeated",
                "repeated-1", "explicit",
            ])
    }

    @Test("a checked link: a missing file, a missing heading and a fragment into code are told apart")
    func problemsAreReported() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("markdown-links-\(UUID())")
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("docs"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try "# Top\n## The mock's contract\n".write(
            to: folder.appendingPathComponent("docs/PROTOCOL.md"), atomically: true, encoding: .utf8)
        try "let x = 1\n".write(to: folder.appendingPathComponent("code.swift"), atomically: true, encoding: .utf8)
        let readme = folder.appendingPathComponent("README.md")
        try "# Read me\n".write(to: readme, atomically: true, encoding: .utf8)
        func problem(_ target: String) -> String? {
            MarkdownLinks.problem(with: MarkdownLink(target: target, line: 1), in: readme, root: folder)
        }
        #expect(problem("docs/PROTOCOL.md#the-mocks-contract") == nil)
        #expect(problem("./docs/../docs/PROTOCOL.md") == nil)
        #expect(problem("/docs/PROTOCOL.md") == nil)
        #expect(problem("docs") == nil)
        #expect(problem("#read-me") == nil)
        #expect(problem("code.swift#L1") == nil)
        #expect(problem("https://example.com/missing.md") == nil)
        #expect(problem("mailto:someone@example.com") == nil)
        #expect(problem("../shared/docs/PROTOCOL.md") == "no file \(folder.deletingLastPathComponent().appendingPathComponent("shared/docs/PROTOCOL.md").standardizedFileURL.path)")
        #expect(problem("docs/PROTOCOL.md#the-http2-mock") == "no heading #the-http2-mock in docs/PROTOCOL.md")
        #expect(problem("#missing") == "no heading #missing in README.md")
        #expect(problem("missing.md") == "no file missing.md")
    }

    @Test("the repository's Markdown files are found: hidden folders and fuzz corpora left out")
    func repositoryFilesAreFound() {
        let files = MarkdownLinks.markdownFiles(under: Self.repository).map {
            MarkdownLinks.relativePath(of: $0, to: Self.repository)
        }
        #expect(files.contains("README.md"))
        #expect(files.contains("docs/PROTOCOL.md"))
        #expect(files.contains("CHANGELOG.md"))
        #expect(!files.contains { $0.hasPrefix(".") || $0.contains("/.") || $0.contains("/corpus/") })
    }

    /// The pages README.md was split into (#43 item 7), each linked from it.
    static let readmePages = [
        "docs/LIBRARY.md", "docs/FATE.md", "docs/CLI.md", "docs/FEEDBACK-SERVICE.md", "docs/MOCKS.md", "docs/BRIDGE.md",
    ]

    @Test("README.md stays under 350 lines; every docs/ page it links exists, and each page split from it links back")
    func readmeStaysShort() throws {
        let readme = try String(contentsOf: Self.repository.appendingPathComponent("README.md"), encoding: .utf8)
        let lines = readme.split(separator: "\n", omittingEmptySubsequences: false).count - 1
        #expect(lines < 350, "README.md has \(lines) lines: move the detail into docs/")
        let pages = Set(
            MarkdownLinks.links(in: readme).map { String($0.target.prefix { $0 != "#" }) }.filter { $0.hasPrefix("docs/") })
        for page in pages.sorted() {
            #expect(
                FileManager.default.fileExists(atPath: Self.repository.appendingPathComponent(page).path),
                "README.md links \(page), which does not exist")
        }
        for page in Self.readmePages {
            #expect(pages.contains(page), "README.md does not link \(page)")
            let text = try String(contentsOf: Self.repository.appendingPathComponent(page), encoding: .utf8)
            let back = MarkdownLinks.links(in: text).contains { $0.target.hasPrefix("../README.md") }
            #expect(back, "\(page) does not link back to the README")
        }
    }

    @Test("every relative link in the repository's Markdown resolves")
    func everyLinkResolves() throws {
        let (broken, checked) = try MarkdownLinks.brokenLinks(under: Self.repository)
        #expect(checked >= 50, "only \(checked) links found: the parser lost them")
        #expect(broken.isEmpty, "broken Markdown links:\n\(broken.joined(separator: "\n"))")
    }
}
