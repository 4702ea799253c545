import APNWire
import Testing

/// `byteArray(count:_:)`: the bytes the closure wrote, for sizes on the stack and past it.
@Suite struct ByteArrayTests {
    @Test(arguments: [0, 1, 32, 4_096, 100_000])
    func holdsWhatWasWritten(count: Int) {
        let bytes = byteArray(count: count) { buffer in
            for index in buffer.indices { buffer[index] = UInt8(truncatingIfNeeded: index &* 7 &+ 3) }
        }
        #expect(bytes.count == count)
        #expect(bytes == (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) })
    }

    @Test func hexDecodingGoesThroughIt() {
        #expect(bytes(fromHexDigits: Array("00ff7A".utf8)) == [0x00, 0xFF, 0x7A])
        #expect(bytes(fromHexDigits: Array("0g".utf8)) == nil, "not hex")
        #expect(bytes(fromHexDigits: Array("abc".utf8)) == nil, "odd")
        #expect(bytes(fromHexDigits: [UInt8]()) == [])
    }
}
