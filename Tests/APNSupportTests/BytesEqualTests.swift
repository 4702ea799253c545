import APNSupport
import Testing

/// The word-at-a-time byte comparison and the string-to-bytes match built on it: equal at
/// every length around the word size, unequal with one byte changed at any position.
@Suite struct BytesEqualTests {
    @Test func everyLengthAndEveryDifferingPositionIsSeen() {
        for count in 0...33 {
            let a = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 1) }
            #expect(Self.equal(a, a), "length \(count)")
            for position in 0..<count {
                var b = a
                b[position] ^= 0x80
                #expect(!Self.equal(a, b), "length \(count), byte \(position)")
            }
        }
    }

    /// `bytesEqual` over two arrays of the same length (an empty one has no base address,
    /// and nothing to compare).
    private static func equal(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard !a.isEmpty else { return true }
        return a.withUnsafeBytes { left in
            b.withUnsafeBytes { right in bytesEqual(left.baseAddress!, right.baseAddress!, count: a.count) }
        }
    }

    @Test func aStringMatchesExactlyItsUTF8Bytes() {
        func matches(_ string: String, _ bytes: [UInt8]) -> Bool {
            bytes.withUnsafeBufferPointer { utf8Equals(string, $0) }
        }
        #expect(matches("", []))
        #expect(matches("bearer abc.def", Array("bearer abc.def".utf8)))
        #expect(matches(String(repeating: "x", count: 40), Array(repeating: UInt8(ascii: "x"), count: 40)))
        #expect(!matches("bearer abc.def", Array("bearer abc.deg".utf8)))
        #expect(!matches("abc", Array("abcd".utf8)))
        #expect(!matches("abcd", Array("abc".utf8)))
        #expect(!matches("", [0]))
        // Bytes, not canonical equivalence: "é" precomposed is not "e" and a combining accent.
        #expect(matches("\u{E9}", [0xC3, 0xA9]))
        #expect(!matches("\u{E9}", [0x65, 0xCC, 0x81]))
    }
}
