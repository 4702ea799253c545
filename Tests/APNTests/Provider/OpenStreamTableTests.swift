@testable import APN
import APNTestSupport
import Testing

/// The open streams of a connection, by id: odd ids rising by two, removed in any order.
/// (The table is noncopyable: what `#expect` looks at is read into a local first, as the
/// macro copies the base of a property it shows.)
@Suite struct OpenStreamTableTests {
    @Test func streamsAreFoundByIDAndLeaveInAnyOrder() {
        var table = OpenStreamTable<String>()
        var isEmpty = table.isEmpty
        #expect(isEmpty)
        for id in stride(from: Int32(1), through: 9, by: 2) { table.insert("s\(id)", for: id) }
        let count = table.count
        #expect(count == 5)
        #expect(table[5] == "s5")
        #expect(table[4] == nil)  // an even id is never a client's
        #expect(table[11] == nil)
        #expect(table.removeValue(forKey: 5) == "s5")
        #expect(table.removeValue(forKey: 5) == nil)
        #expect(table.removeValue(forKey: 1) == "s1")
        #expect(table[3] == "s3")
        var values = table.values
        #expect(values == ["s3", "s7", "s9"])
        // A gap (an id never opened here) is no stream.
        table.insert("s13", for: 13)
        #expect(table[11] == nil)
        values = table.values
        #expect(values == ["s3", "s7", "s9", "s13"])
        for id: Int32 in [9, 3, 13, 7] { #expect(table.removeValue(forKey: id) == "s\(id)") }
        isEmpty = table.isEmpty
        #expect(isEmpty)
        // Empty, it starts again at whatever id comes next.
        table.insert("s101", for: 101)
        let one = table[101] == "s101" && table.count == 1
        #expect(one)
        table.removeAll()
        let cleared = table.isEmpty && table[101] == nil
        #expect(cleared)
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
        let count = table.count, values = table.values
        #expect(count == open.count)
        #expect(values == open.sorted())
        for id in open { #expect(table[id] == id) }
    }
}
