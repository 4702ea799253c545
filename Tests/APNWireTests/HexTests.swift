import APNWire
import Testing

@Suite struct HexTests {
    @Test func writesLowercaseTwoDigitsAByte() {
        #expect(hexString([0x00, 0x0F, 0xA5, 0xFF]) == "000fa5ff")
        #expect(hexString([UInt8]()) == "")
    }

    @Test func writesAfterAPrefix() {
        #expect(hexString([0xAB, 0x01], after: "/3/device/") == "/3/device/ab01")
        #expect(hexString([UInt8](), after: "/3/device/") == "/3/device/")
    }

    /// The word-at-a-time writer against the definition: every byte value at every position
    /// of every length up to 12 (whole words, the tail, both), and nothing written past the
    /// digits.
    @Test func writesEveryByteAtEveryPositionAsTheDefinitionSays() {
        let digits = Array("0123456789abcdef".utf8)
        for length in 0...12 {
            for position in 0..<max(1, length) {
                for value in 0...255 {
                    var bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
                    if length > 0 { bytes[position] = UInt8(value) }
                    let expected = bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0x0F)]] }
                    var written = [UInt8](repeating: 0xEE, count: 2 * length + 3)
                    written.withUnsafeMutableBytes { out in
                        bytes.withUnsafeBufferPointer { writeHexDigits(of: $0, to: out.baseAddress!) }
                    }
                    #expect(Array(written.prefix(2 * length)) == expected, "length \(length) position \(position) value \(value)")
                    #expect(written.suffix(3) == [0xEE, 0xEE, 0xEE])
                    if length == 0 { break }
                }
            }
        }
    }

    @Test(arguments: [
        ("000fa5ff", [0x00, 0x0F, 0xA5, 0xFF] as [UInt8]?),
        ("ABcd", [0xAB, 0xCD]),
        ("", []),
        ("abc", nil),        // odd number of digits
        ("zz", nil),         // not hex
        ("ab cd", nil),      // strict: no separators
        ("<abcd>", nil),
    ] as [(String, [UInt8]?)])
    func readsOnlyAnEvenRunOfHexDigits(text: String, expected: [UInt8]?) {
        #expect(bytes(fromHex: text) == expected, "\(text)")
    }

    @Test func roundTrips() {
        let all = (0...255).map(UInt8.init)
        #expect(bytes(fromHex: hexString(all)) == all)
        #expect(bytes(fromHex: hexString(all).uppercased()) == all)
    }

    /// A byte's value by the definition: the reference the word-at-a-time reader is held to.
    private func reference(_ digits: [UInt8]) -> [UInt8]? {
        guard digits.count.isMultiple(of: 2) else { return nil }
        var bytes: [UInt8] = []
        for pair in stride(from: 0, to: digits.count, by: 2) {
            guard let high = hexValue(digits[pair]), let low = hexValue(digits[pair + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    /// Every length up to 40 digits (two steps of sixteen, a word of eight after them, and
    /// each tail of two to six), each case, and every byte value at every position: the
    /// word-at-a-time reader, which looks at the validity it gathered only at the end, agrees
    /// with the definition, from memory and from a collection that is not contiguous.
    @Test func readsSixteenDigitsAtATimeAsTheDefinitionDoes() {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("0123456789abcdefABCDEF".utf8)
        for length in 0...40 {
            let digits = (0..<length).map { _ in alphabet.randomElement(using: &generator)! }
            let expected = reference(digits)
            #expect(length % 2 == 1 || expected != nil)
            #expect(digits.withUnsafeBufferPointer { bytes(fromHexDigits: $0) } == expected, "\(length)")
            #expect(bytes(fromHexDigits: digits.lazy.map { $0 }) == expected, "\(length)")
            guard length > 0 else { continue }
            for position in 0..<length {
                for value in 0...255 {
                    var changed = digits
                    changed[position] = UInt8(value)
                    let read = changed.withUnsafeBufferPointer { bytes(fromHexDigits: $0) }
                    if read != reference(changed) {
                        Issue.record("length \(length), byte \(value) at \(position): \(String(describing: read))")
                        return
                    }
                }
            }
        }
    }

    /// The digits after a word are read only up to the end: a buffer cut from a larger one
    /// decodes its own digits whatever follows.
    @Test func readsNoFurtherThanItsDigits() {
        let line = Array("a5a5a5a5a5a5a5a5a5a5zz".utf8)
        line.withUnsafeBufferPointer { all in
            for count in stride(from: 0, through: 20, by: 2) {
                #expect(bytes(fromHexDigits: UnsafeBufferPointer(rebasing: all[0..<count])) == [UInt8](repeating: 0xA5, count: count / 2))
            }
        }
    }
}
