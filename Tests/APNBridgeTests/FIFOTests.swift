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

    /// A copy is a value: changing either (append, growth, removal, a write in place,
    /// `removeAll`) leaves the other as it was, with the ring wrapped and while shared.
    @Test func copiesOnWrite() {
        var original = FIFO<[Int]>()
        for value in 0..<6 { original.append([value]) }
        for _ in 0..<3 { original.removeFirst() }
        for value in 6..<9 { original.append([value]) }  // wrapped: 3...8 in a ring of 8
        var copy = original
        copy.append([9])
        copy.append([10])  // grows while shared
        copy[0] = [-3]
        copy.removeFirst()
        #expect((0..<original.count).map { original[$0] } == (3..<9).map { [$0] })
        #expect((0..<copy.count).map { copy[$0] } == (4..<11).map { [$0] })
        var second = original
        second.removeAll()
        #expect(second.isEmpty && second.first == nil)
        #expect(original.count == 6 && original.first == [3])
        original[5] = [-8]
        #expect(copy[4] == [8])
        second.append([1])
        #expect(second.count == 1 && second.first == [1])
    }

    /// Dropping a queue, or `removeAll`, releases every element it held, wherever the ring
    /// had wrapped; a queue emptied so is usable again.
    @Test func releasesEverythingWhenDroppedOrEmptied() {
        final class Held {}
        var watched: [Weak<Held>] = []
        do {
            var fifo = FIFO<Held>()
            for round in 0..<3 {
                for _ in 0..<5 {
                    let held = Held()
                    watched.append(Weak(held))
                    fifo.append(held)
                }
                if round < 2 { for _ in 0..<3 { fifo.removeFirst() } }
            }
            #expect(fifo.count == 9)
            #expect(watched.filter { $0.value != nil }.count == 9)
        }
        #expect(watched.allSatisfy { $0.value == nil })

        var fifo = FIFO<Held>()
        var kept: [Weak<Held>] = []
        for _ in 0..<5 {
            let held = Held()
            kept.append(Weak(held))
            fifo.append(held)
        }
        fifo.removeAll()
        #expect(fifo.isEmpty)
        #expect(kept.allSatisfy { $0.value == nil })
        fifo.append(Held())
        #expect(fifo.count == 1)
    }
}

/// A weak reference, to watch an element's lifetime.
private struct Weak<Value: AnyObject> {
    weak var value: Value?
    init(_ value: Value) { self.value = value }
}
