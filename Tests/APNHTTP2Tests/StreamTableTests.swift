@testable import APNHTTP2
import APNTestSupport
import Testing

/// The stream table against `Dictionary`, through random inserts, lookups and removals.
@Suite struct StreamTableTests {
    @Test(arguments: [1, 2, 3] as [UInt64], [false, true])
    func agreesWithADictionary(_ seed: UInt64, sequentialIDs: Bool) {
        var generator = SplitMix64(seed: seed)
        var table = StreamTable(sequentialIDs: sequentialIDs)
        var reference: [Int32: Int] = [:]
        var nextID: Int32 = 1
        for step in 0..<100_000 {
            // Mostly new streams and removals, as a connection sees them, with the open
            // count wandering up to a few thousand and back.
            let open = reference.count
            if open == 0 || Int.random(in: 0..<4000, using: &generator) >= open {
                var state = StreamState()
                state.outgoingOffset = step
                let slot = table.insert(nextID, state)
                #expect(table.slot(of: nextID) == slot)
                reference[nextID] = step
                nextID += 2
            } else {
                let id = reference.keys.randomElement(using: &generator)!
                let slot = table.slot(of: id)
                #expect(slot.map { table[slot: $0].outgoingOffset } == reference.removeValue(forKey: id))
                let removed = table.remove(id)
                #expect(removed)
                #expect(table.slot(of: id) == nil)
            }
            if step % 997 == 0 {
                #expect(table.count == reference.count)
                for (id, value) in reference {
                    #expect(table.slot(of: id).map { table[slot: $0].outgoingOffset } == value)
                }
                #expect(table.slot(of: nextID) == nil)
                let removedUnknown = table.remove(nextID)
                #expect(!removedUnknown)
            }
        }
    }
}
