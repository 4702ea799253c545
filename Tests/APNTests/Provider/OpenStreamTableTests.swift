@testable import APN
import APNTestSupport
import Testing

/// The open streams of a connection, by id: odd ids rising by two, removed in any order.
@Suite struct OpenStreamTableTests {
    @Test func streamsAreFoundByIDAndLeaveInAnyOrder() {
        var table = OpenStreamTable<String>()
        #expect(table.isEmpty)
        for id in stride(from: Int32(1), through: 9, by: 2) { table.insert("s\(id)", for: id) }
        #expect(table.count == 5)
        #expect(table[5] == "s5")
        #expect(table[4] == nil)  // an even id is never a client's
        #expect(table[11] == nil)
        #expect(table.removeValue(forKey: 5) == "s5")
        #expect(table.removeValue(forKey: 5) == nil)
        #expect(table.removeValue(forKey: 1) == "s1")
        #expect(table[3] == "s3")
        #expect(table.values == ["s3", "s7", "s9"])
        // A gap (an id never opened here) is no stream.
        table.insert("s13", for: 13)
        #expect(table[11] == nil)
        #expect(table.values == ["s3", "s7", "s9", "s13"])
        for id: Int32 in [9, 3, 13, 7] { #expect(table.removeValue(forKey: id) == "s\(id)") }
        #expect(table.isEmpty)
        // Empty, it starts again at whatever id comes next.
        table.insert("s101", for: 101)
        #expect(table[101] == "s101" && table.count == 1)
        table.removeAll()
        #expect(table.isEmpty && table[101] == nil)
    }

    @Test func manyStreamsKeepEveryOneFindableAsTheWindowMoves() {
        var table = OpenStreamTable<Int32>()
        var open: [Int32] = []
        var next: Int32 = 1
        var generator = SplitMix64(seed: 2026)
        for _ in 0..<20_000 {
            if open.count < 300 || Bool.random(using: &generator) {
                table.insert(next, for: next)
                open.append(next)
                next += 2
            } else {
                // Mostly the oldest first, as answers come, sometimes any.
                let index = Int.random(in: 0..<(Bool.random(using: &generator) ? 1 : open.count), using: &generator)
                let id = open.remove(at: index)
                #expect(table.removeValue(forKey: id) == id)
            }
        }
        #expect(table.count == open.count)
        #expect(table.values == open.sorted())
        for id in open { #expect(table[id] == id) }
    }
}
