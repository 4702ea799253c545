@testable import apn
import APN
import Foundation
import Testing

/// `apn send`'s tokens file: one past ``TokenList``'s parallel size is parsed in two halves
/// at once; the devices come out in the file's order and bad lines keep their numbers.
@Suite struct TokenListTests {
    @Test func aLargeFileParsedInTwoHalvesKeepsItsOrderAndLineNumbers() throws {
        var lines = (0..<70_000).map { String(format: "%016x", $0) + String(repeating: "d4", count: 24) }
        lines[10] = "# a comment"
        lines[11] = ""
        lines[20_000] = "not hex"
        lines[35_000] += "\r"  // about the middle
        lines[35_001] = "  " + lines[35_001] + "\t"
        lines[60_000] = "abcd"  // hex, but not 32 bytes: the binary interface refuses it
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("tokens-\(UUID().uuidString).txt").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try lines.joined(separator: "\n").write(toFile: path, atomically: false, encoding: .utf8)  // no final newline
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0 > 4 << 20, "past the parallel size")
        // Split, so this is the two-halves path, at a line's start.
        let halves = try #require(try TokenList.halves(of: path))
        let bytes = try #require(FileManager.default.contents(atPath: path))
        #expect(halves.first.upperBound == halves.second.lowerBound && halves.second.upperBound == bytes.count)
        #expect(bytes[halves.first.upperBound - 1] == 0x0A, "the first half ends with its newline")

        let list = try TokenList(tokens: [], file: path, binary: true)
        let skipped: Set<Int> = [10, 11, 20_000, 60_000]
        let expected = lines.indices.filter { !skipped.contains($0) }.map { index in
            try! Device(String(format: "%016x", index) + String(repeating: "d4", count: 24))
        }
        #expect(list.devices == expected)
        #expect(list.bad.map(\.line) == [20_001, 60_001], "numbered from 1, across both halves")
        #expect(list.bad.map(\.text) == ["not hex", "abcd"])
    }
}
