import APNBridge
import APNTestSupport
import Testing

/// The ring-backed queue against an array doing the same: appends, removals, in-place
/// writes and `keep` in a seeded random order, across every growth and wrap of the ring.
@Suite struct FIFOTests {
    @Test func behavesAsAnArrayQueue() {
        var generator = SplitMix64(seed: 45)
        var fifo = FIFO<[Int]>()
        var model: [[Int]] = []
        for step in 0..<20_000 {
            switch generator.next() % 10 {
            case 0...4:
                fifo.append([step])
                model.append([step])
            case 5...7 where !model.isEmpty:
                #expect(fifo.removeFirst() == model.removeFirst())
            case 8 where !model.isEmpty:
                let offset = Int(generator.next() % UInt64(model.count))
                fifo[offset] = [step, -1]
                model[offset] = [step, -1]
            case 9 where step % 97 == 0:
                fifo.keep { $0[0] % 3 != 0 }
                model.removeAll { $0[0] % 3 == 0 }
            default:
                break
            }
            #expect(fifo.count == model.count)
            #expect(fifo.first == model.first)
            if step % 500 == 0 {
                #expect((0..<fifo.count).map { fifo[$0] } == model)
            }
        }
        while let expected = model.first {
            #expect(fifo.removeFirst() == expected)
            model.removeFirst()
        }
        #expect(fifo.isEmpty)
    }

    @Test func releasesWhatItRemovesAtOnce() {
        final class Held {}
        weak var watched: Held?
        var fifo = FIFO<Held>()
        do {
            let held = Held()
            watched = held
            fifo.append(held)
            fifo.append(Held())
        }
        _ = fifo.removeFirst()
        #expect(watched == nil)
        #expect(fifo.count == 1)
    }
}
