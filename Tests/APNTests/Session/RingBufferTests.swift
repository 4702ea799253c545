import APN
import APNTestSupport
import APNTestTraits
import Testing

@Suite(.threadPerTest) struct RingBufferTests {
    final class Box {
        let value: Int
        init(_ value: Int) { self.value = value }
    }

    @Test func behavesLikeADequeThroughGrowthAndWrapAround() {
        var ring = RingBuffer<Int>(minimumCapacity: 4)
        var model: [Int] = []
        var random = SplitMix64(seed: 42)
        for step in 0..<5_000 {
            switch Int.random(in: 0..<5, using: &random) {
            case 0, 1:
                ring.append(step)
                model.append(step)
            case 2:
                ring.prepend(step)
                model.insert(step, at: 0)
            case 3 where !model.isEmpty:
                #expect(ring.removeFirst() == model.removeFirst())
            case 4 where !model.isEmpty:
                #expect(ring.removeLast() == model.removeLast())
            default:
                #expect(ring.popFirst() == nil)
            }
            #expect(ring.count == model.count)
            if !model.isEmpty {
                let index = Int.random(in: 0..<model.count, using: &random)
                #expect(ring[index] == model[index], "step \(step)")
            }
        }
    }

    @Test func prependContentsKeepsOrder() {
        var ring = RingBuffer<Int>()
        ring.append(3)
        ring.prepend(contentsOf: [1, 2])
        #expect((0..<ring.count).map { ring[$0] } == [1, 2, 3])
    }

    @Test func releasesEveryElementItHeld() {
        weak var first: Box?
        weak var last: Box?
        do {
            var ring = RingBuffer<Box>(minimumCapacity: 2)
            for value in 0..<100 { ring.append(Box(value)) }
            first = ring[0]
            last = ring[99]
            _ = ring.removeFirst()
            #expect(first == nil, "removed elements are released")
            #expect(last != nil)
            ring[0] = Box(-1)
            #expect(ring[0].value == -1, "assigning in place releases the old element")
        }
        #expect(last == nil, "the ring releases what it holds when it goes")
    }

    @Test func modifiesInPlace() {
        var ring = RingBuffer<[Int]>()
        ring.append([1])
        ring[0].append(2)
        #expect(ring[0] == [1, 2])
    }
}
