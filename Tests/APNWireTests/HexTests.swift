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
}
