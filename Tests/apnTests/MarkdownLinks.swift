import Foundation

/// A link target written in a Markdown file: an inline link's or image's `(target)`, or a
/// reference definition's `[label]: target`, with the line it starts on.
struct MarkdownLink: Hashable, Sendable, CustomStringConvertible {
    /// The destination as written, without angle brackets or a title.
    var target: String
    /// The 1-based line of the file the link's destination is on.
    var line: Int

    var description: String { "\(line): \(target)" }
}

/// What the repository's Markdown link test needs of Markdown, and no more: the link targets
/// outside code (fenced blocks, code spans, HTML comments), the anchors GitHub gives the
/// headings, and a check of each relative target against the files beside it.
///
/// Not a CommonMark parser: indented code blocks and setext (underlined) headings are not
/// recognised; the repository's Markdown uses fences and `#` headings.
enum MarkdownLinks {
    // MARK: Links

    /// Every inline link (and image) destination and reference definition in `markdown`,
    /// in the order written, leaving out what is in fenced code blocks, code spans and HTML
    /// comments.
    static func links(in markdown: String) -> [MarkdownLink] {
        let lines = proseLines(of: markdown)
        var links: [MarkdownLink] = []
        for (index, line) in lines.enumerated() {
            if let target = referenceDefinition(in: line) {
                links.append(MarkdownLink(target: target, line: index + 1))
            }
        }
        links += inlineLinks(in: Array(lines.joined(separator: "\n").utf8))
        return links.sorted { $0.line < $1.line }
    }

    /// The lines of `markdown` with those of fenced code blocks (fences included) blanked,
    /// so that line numbers stay those of the file.
    static func proseLines(of markdown: String) -> [String] {
        var result: [String] = []
        var fence: (character: Character, length: Int)?
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.drop { $0 == " " || $0 == "\t" }
            let run = trimmed.prefix { $0 == "`" || $0 == "~" }
            let marker = run.first.map { first in (first, run.prefix { $0 == first }.count) }
            if let open = fence {
                if let marker, marker.0 == open.character, marker.1 >= open.length,
                    trimmed.dropFirst(marker.1).allSatisfy({ $0 == " " || $0 == "\t" || $0 == "\r" })
                {
                    fence = nil
                }
                result.append("")
            } else if let marker, marker.1 >= 3 {
                fence = (marker.0, marker.1)
                result.append("")
            } else {
                result.append(String(line))
            }
        }
        return result
    }

    /// The target of a reference definition (`[label]: target "title"`, indented at most 3
    /// spaces) on `line`, if it is one. Footnotes (`[^1]: text`) are not definitions.
    static func referenceDefinition(in line: String) -> String? {
        var rest = Substring(line)
        let indent = rest.prefix { $0 == " " }.count
        guard indent <= 3 else { return nil }
        rest = rest.dropFirst(indent)
        guard rest.first == "[", rest.dropFirst().first != "^", let close = rest.firstIndex(of: "]"),
            close > rest.index(after: rest.startIndex)
        else { return nil }
        rest = rest[rest.index(after: close)...]
        guard rest.first == ":" else { return nil }
        rest = rest.dropFirst().drop { $0 == " " || $0 == "\t" }
        if rest.first == "<" {
            guard let end = rest.firstIndex(of: ">") else { return nil }
            return String(rest[rest.index(after: rest.startIndex)..<end])
        }
        let target = rest.prefix { $0 != " " && $0 != "\t" && $0 != "\r" }
        return target.isEmpty ? nil : String(target)
    }

    /// The inline link and image destinations in `text` (prose lines joined by newlines),
    /// skipping backslash escapes, code spans and HTML comments. A blank line ends a
    /// paragraph: brackets and code spans do not reach across one.
    static func inlineLinks(in text: [UInt8]) -> [MarkdownLink] {
        var links: [MarkdownLink] = []
        var openBrackets = 0
        var line = 1
        var index = 0
        while index < text.count {
            switch text[index] {
            case UInt8(ascii: "\n"):
                line += 1
                if isBlankLine(text, from: index + 1) { openBrackets = 0 }
                index += 1
            case UInt8(ascii: "\\"):
                if index + 1 < text.count, text[index + 1] == UInt8(ascii: "\n") { line += 1 }
                index += 2
            case UInt8(ascii: "`"):
                let end = codeSpanEnd(text, from: index)
                line += text[index..<end].count { $0 == UInt8(ascii: "\n") }
                index = end
            case UInt8(ascii: "<") where text[index...].starts(with: Array("<!--".utf8)):
                let end = commentEnd(text, from: index)
                line += text[index..<end].count { $0 == UInt8(ascii: "\n") }
                index = end
            case UInt8(ascii: "["):
                openBrackets += 1
                index += 1
            case UInt8(ascii: "]"):
                index += 1
                guard openBrackets > 0 else { continue }
                openBrackets -= 1
                guard index < text.count, text[index] == UInt8(ascii: "("),
                    let (target, end) = destination(text, from: index + 1)
                else { continue }
                links.append(MarkdownLink(target: target, line: line))
                line += text[index..<end].count { $0 == UInt8(ascii: "\n") }
                index = end
            default:
                index += 1
            }
        }
        return links
    }

    /// Whether the line starting at `start` holds only spaces and tabs (or is the end).
    private static func isBlankLine(_ text: [UInt8], from start: Int) -> Bool {
        var index = start
        while index < text.count, text[index] != UInt8(ascii: "\n") {
            guard text[index] == UInt8(ascii: " ") || text[index] == UInt8(ascii: "\t")
                || text[index] == UInt8(ascii: "\r")
            else { return false }
            index += 1
        }
        return true
    }

    /// Where the code span whose opening backticks start at `start` ends: after the next
    /// run of exactly as many backticks in the paragraph, or, with none, right after the
    /// opening run (which is then literal text).
    private static func codeSpanEnd(_ text: [UInt8], from start: Int) -> Int {
        func run(at index: Int) -> Int {
            var end = index
            while end < text.count, text[end] == UInt8(ascii: "`") { end += 1 }
            return end - index
        }
        let length = run(at: start)
        var index = start + length
        while index < text.count {
            if text[index] == UInt8(ascii: "\n"), isBlankLine(text, from: index + 1) { break }
            if text[index] == UInt8(ascii: "`") {
                let closing = run(at: index)
                if closing == length { return index + closing }
                index += closing
            } else {
                index += 1
            }
        }
        return start + length
    }

    /// Where the HTML comment starting at `start` ends: after its `-->`, or at the end.
    private static func commentEnd(_ text: [UInt8], from start: Int) -> Int {
        let close = Array("-->".utf8)
        var index = start + 4
        while index < text.count {
            if text[index...].starts(with: close) { return index + close.count }
            index += 1
        }
        return text.count
    }

    /// The destination of an inline link whose `(` is just before `start`, and the index
    /// after its `)`: `<target>` or a target with balanced parentheses, then an optional
    /// title. Nil when what follows is no link destination.
    private static func destination(_ text: [UInt8], from start: Int) -> (String, Int)? {
        func isSpace(_ byte: UInt8) -> Bool {
            byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\n")
        }
        var index = start
        while index < text.count, isSpace(text[index]) { index += 1 }
        var target: [UInt8] = []
        if index < text.count, text[index] == UInt8(ascii: "<") {
            index += 1
            while index < text.count, text[index] != UInt8(ascii: ">") {
                guard text[index] != UInt8(ascii: "\n") else { return nil }
                target.append(text[index])
                index += 1
            }
            guard index < text.count else { return nil }
            index += 1
        } else {
            var depth = 0
            while index < text.count, !isSpace(text[index]) {
                let byte = text[index]
                if byte == UInt8(ascii: "\\"), index + 1 < text.count {
                    target.append(text[index + 1])
                    index += 2
                    continue
                }
                if byte == UInt8(ascii: "(") { depth += 1 }
                if byte == UInt8(ascii: ")") {
                    if depth == 0 { break }
                    depth -= 1
                }
                target.append(byte)
                index += 1
            }
        }
        while index < text.count, isSpace(text[index]) { index += 1 }
        if index < text.count, let closer = titleCloser(text[index]) {
            index += 1
            while index < text.count, text[index] != closer { index += 1 }
            index += 1
            while index < text.count, isSpace(text[index]) { index += 1 }
        }
        guard index < text.count, text[index] == UInt8(ascii: ")") else { return nil }
        return (String(decoding: target, as: UTF8.self), index + 1)
    }

    /// The byte that closes a link title opened by `byte`, if `byte` opens one.
    private static func titleCloser(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "\""): UInt8(ascii: "\"")
        case UInt8(ascii: "'"): UInt8(ascii: "'")
        case UInt8(ascii: "("): UInt8(ascii: ")")
        default: nil
        }
    }

    // MARK: Anchors

    /// The anchors a link can name in `markdown` as GitHub renders it: each `#` heading's
    /// slug (a repeated one gets `-1`, `-2`, …) outside fenced code, and the `id` or `name`
    /// of any `<a …>` element.
    static func anchors(in markdown: String) -> Set<String> {
        var anchors: Set<String> = []
        var seen: [String: Int] = [:]
        for line in proseLines(of: markdown) {
            if let heading = headingText(of: line) {
                let base = slug(heading)
                let count = seen[base, default: 0]
                seen[base] = count + 1
                anchors.insert(count == 0 ? base : "\(base)-\(count)")
            }
            for match in line.matches(of: #/<a\s[^>]*(?:id|name)="([^"]+)"/#) {
                anchors.insert(String(match.output.1))
            }
        }
        return anchors
    }

    /// The text of an ATX heading (`## Text ##`, indented at most 3 spaces), if `line` is one.
    static func headingText(of line: String) -> String? {
        let indent = line.prefix { $0 == " " }.count
        guard indent <= 3 else { return nil }
        let rest = line.dropFirst(indent)
        let level = rest.prefix { $0 == "#" }.count
        guard (1...6).contains(level) else { return nil }
        let afterMarker = rest.dropFirst(level)
        guard afterMarker.isEmpty || afterMarker.first == " " || afterMarker.first == "\t" else { return nil }
        var text = afterMarker.trimmingCharacters(in: .whitespacesAndNewlines)
        let closing = text.reversed().prefix { $0 == "#" }.count
        if closing == text.count {
            text = ""
        } else if closing > 0, text.dropLast(closing).last == " " {
            text = String(text.dropLast(closing)).trimmingCharacters(in: .whitespaces)
        }
        return text
    }

    /// GitHub's anchor for a heading: its text with links reduced to their text, lowercased,
    /// each space a `-`, and every character but letters, digits, `-` and `_` dropped.
    static func slug(_ heading: String) -> String {
        let text = heading.replacing(#/!?\[([^\]]*)\]\([^)]*\)/#) { String($0.output.1) }
        var slug = ""
        for character in text.lowercased() {
            if character == " " {
                slug.append("-")
            } else if character.isLetter || character.isNumber || character == "-" || character == "_" {
                slug.append(character)
            }
        }
        return slug
    }

    // MARK: Checking a repository

    /// Every Markdown file under `root`, sorted, leaving out hidden folders (`.build`, `.git`,
    /// …) and the fuzzers' corpora (`Fuzz/*/corpus`).
    static func markdownFiles(under root: URL) -> [URL] {
        let keys: [URLResourceKey] = [.isDirectoryKey]
        guard
            let walker = FileManager.default.enumerator(
                at: root, includingPropertiesForKeys: keys, options: [.skipsHiddenFiles])
        else { return [] }
        var files: [URL] = []
        for case let url as URL in walker {
            let isDirectory = (try? url.resourceValues(forKeys: Set(keys)))?.isDirectory ?? false
            if isDirectory {
                if url.lastPathComponent == "corpus", url.pathComponents.contains("Fuzz") { walker.skipDescendants() }
            } else if url.pathExtension.lowercased() == "md" {
                files.append(url)
            }
        }
        return files.sorted { $0.path < $1.path }
    }

    /// Whether `target` is left to the web: an `http:`, `https:` or `mailto:` address.
    static func isExternal(_ target: String) -> Bool {
        let lowered = target.lowercased()
        return ["http:", "https:", "mailto:"].contains { lowered.hasPrefix($0) }
    }

    /// What is wrong with `link`, written in the Markdown file `file`, or nil when it
    /// resolves: a relative path must name a file or folder (a leading `/` is the
    /// repository's `root`, as on GitHub), and a fragment into a Markdown file (the same
    /// file for a bare `#fragment`) must be one of its anchors.
    static func problem(with link: MarkdownLink, in file: URL, root: URL) -> String? {
        var cache = AnchorCache()
        return problem(with: link, in: file, root: root, anchors: &cache)
    }

    /// The anchors of each Markdown file read so far, by path: a file with a hundred links
    /// into another reads and parses it once.
    struct AnchorCache {
        private var anchors: [String: Set<String>?] = [:]

        /// The anchors of the Markdown file at `url`; nil when it cannot be read.
        mutating func anchors(of url: URL) -> Set<String>? {
            if let known = anchors[url.path] { return known }
            let found = (try? String(contentsOf: url, encoding: .utf8)).map(MarkdownLinks.anchors(in:))
            anchors[url.path] = .some(found)
            return found
        }
    }

    /// ``problem(with:in:root:)``, reading each Markdown file's anchors through `cache`.
    static func problem(with link: MarkdownLink, in file: URL, root: URL, anchors cache: inout AnchorCache) -> String? {
        let target = link.target
        guard !target.isEmpty else { return "an empty target" }
        guard !isExternal(target) else { return nil }
        let hash = target.firstIndex(of: "#")
        let beforeHash = target[..<(hash ?? target.endIndex)]
        let path = beforeHash[..<(beforeHash.firstIndex(of: "?") ?? beforeHash.endIndex)]
        let fragment = hash.map { String(target[target.index(after: $0)...]) }
        let decodedPath = path.removingPercentEncoding ?? String(path)
        let resolved: URL
        if decodedPath.isEmpty {
            resolved = file
        } else if decodedPath.hasPrefix("/") {
            resolved = root.appendingPathComponent(String(decodedPath.dropFirst())).standardizedFileURL
        } else {
            resolved = file.deletingLastPathComponent().appendingPathComponent(decodedPath).standardizedFileURL
        }
        guard FileManager.default.fileExists(atPath: resolved.path) else {
            return "no file \(relativePath(of: resolved, to: root))"
        }
        guard let fragment, !fragment.isEmpty, resolved.pathExtension.lowercased() == "md" else { return nil }
        let wanted = fragment.removingPercentEncoding ?? fragment
        guard let anchors = cache.anchors(of: resolved) else {
            return "\(relativePath(of: resolved, to: root)) cannot be read"
        }
        guard anchors.contains(wanted) else {
            return "no heading #\(wanted) in \(relativePath(of: resolved, to: root))"
        }
        return nil
    }

    /// Every link in the Markdown files under `root` that does not resolve, one line each
    /// (`file:line: target: problem`), and how many links were checked.
    static func brokenLinks(under root: URL) throws -> (broken: [String], checked: Int) {
        var broken: [String] = []
        var checked = 0
        var cache = AnchorCache()
        for file in markdownFiles(under: root) {
            let markdown = try String(contentsOf: file, encoding: .utf8)
            for link in links(in: markdown) {
                checked += 1
                if let problem = problem(with: link, in: file, root: root, anchors: &cache) {
                    broken.append("\(relativePath(of: file, to: root)):\(link.line): \(link.target): \(problem)")
                }
            }
        }
        return (broken, checked)
    }

    /// `url`'s path below `root`, or its whole path when it is not below it.
    static func relativePath(of url: URL, to root: URL) -> String {
        let base = root.standardizedFileURL.path
        let path = url.standardizedFileURL.path
        let prefix = base.hasSuffix("/") ? base : base + "/"
        return path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : path
    }
}
