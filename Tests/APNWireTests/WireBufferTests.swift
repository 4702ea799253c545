import APNWire
import APNTestSupport
import Testing

@Suite struct WireBufferTests {
    @Test func consumingFromTheFrontLeavesTheRestContiguous() {
        var buffer = WireBuffer(capacity: 16)
        buffer.write(hex("00112233445566778899"))
        buffer.consume(3)
        #expect(buffer.description == "33445566778899")
        buffer.consume(7)
        #expect(buffer.isEmpty)
        buffer.write(hex("aa"))
        #expect(buffer.description == "aa")
    }

    @Test func growthKeepsUnconsumedBytesInOrder() {
        var buffer = WireBuffer(capacity: 16)
        var expected: [UInt8] = []
        for round in 0..<200 {
            let chunk = (0..<(round % 37)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ round) }
            buffer.write(chunk)
            expected += chunk
            let drop = min(round % 11, expected.count)
            buffer.consume(drop)
            expected.removeFirst(drop)
            #expect(buffer.readableBytesArray == expected)
        }
    }

    @Test func copiesAreIndependent() {
        var original = WireBuffer(capacity: 16)
        original.write(hex("0102"))
        var copy = original
        copy.write(hex("03"))
        original.consume(1)
        original.write(hex("ff"))
        #expect(copy.description == "010203")
        #expect(original.description == "02ff")
    }

    @Test func clearKeepsCapacity() {
        var buffer = WireBuffer(capacity: 64)
        buffer.write([UInt8](repeating: 1, count: 1000))
        let grown = buffer.capacity
        #expect(grown >= 1000)
        buffer.clear()
        #expect(buffer.isEmpty)
        #expect(buffer.capacity == grown)
    }

    @Test func equalityComparesUnconsumedBytes() {
        var a = WireBuffer(hex("00aabb"))
        a.consume(1)
        #expect(a == WireBuffer(hex("aabb")))
        #expect(a != WireBuffer(hex("aab0")))
    }
}
