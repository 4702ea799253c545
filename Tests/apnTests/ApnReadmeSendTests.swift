import Foundation
import Testing
import APNTestSupport
import APNTestTraits

@Suite("README's apn send example", .threadPerTest, .ownsChildProcesses)
struct ApnReadmeSendTests {
    /// A Markdown file of the repository (`README.md`, `docs/BRIDGE.md` …), found from this
    /// file's path.
    static func document(_ path: String) throws -> String {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    /// README.md.
    static func readme() throws -> String { try document("README.md") }

    /// The `apn send` command of the block after the example marker, its continuation lines
    /// joined, split into words as the shell would (single and double quotes).
    static func sendArguments(_ readme: String) throws -> [String] {
        let marker = try #require(readme.range(of: "<!-- apn-send-example"))
        return try command(in: readme[marker.upperBound...], startingWith: ".build/debug/apn send ")
    }

    /// The words after the first `prefix` in `text`, up to the end of its command: lines
    /// ending in a backslash continue it.
    static func command(in text: Substring, startingWith prefix: String) throws -> [String] {
        let start = try #require(text.range(of: prefix), "no \(prefix) in the block")
        var command = ""
        for line in text[start.upperBound...].split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasSuffix("\\") {
                command += trimmed.dropLast() + " "
            } else {
                command += trimmed
                break
            }
        }
        return words(command)
    }

    static func words(_ text: String) -> [String] {
        var words: [String] = []
        var current = ""
        var quote: Character?
        var inWord = false
        for character in text {
            if let open = quote {
                if character == open { quote = nil } else { current.append(character) }
            } else if character == "'" || character == "\"" {
                quote = character
                inWord = true
            } else if character == " " {
                if inWord { words.append(current) }
                current = ""
                inWord = false
            } else {
                current.append(character)
                inWord = true
            }
        }
        if inWord { words.append(current) }
        return words
    }

    @Test("README opens with swift run apn demo, then swift test")
    func firstCommands() throws {
        let readme = try Self.readme()
        let demo = try #require(readme.range(of: "swift run apn demo"))
        let test = try #require(readme.range(of: "swift test"))
        #expect(demo.lowerBound < test.lowerBound)
        #expect(readme.distance(from: readme.startIndex, to: demo.lowerBound) < 1_200, "not at the top")
    }

    @Test("the example, against apn mock-gateway on an ephemeral port, delivers and exits 0")
    func example() throws {
        var arguments = try Self.sendArguments(try Self.readme())
        let fixture = try SendFixture()
        let certsIndex = try #require(arguments.firstIndex(of: "--certs"))
        arguments[certsIndex + 1] = fixture.certs
        let addressIndex = try #require(arguments.firstIndex(of: "--address"))
        arguments[addressIndex + 1] = fixture.address
        let apn = try ApnProcess(["send"] + arguments)
        let (status, standardError) = try apn.waitForExit(timeout: 30)
        #expect(status == 0, "\(arguments) \(standardError)")
        let lines = try apn.remainingLines().map(jsonObject)
        #expect(lines.count == 1)
        #expect(lines.first?["accepted"] as? Int == 1)
        #expect(try fixture.stop()["accepted"] as? Int == 1)
    }
}
