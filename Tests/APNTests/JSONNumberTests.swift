import APN
import APNTestSupport
import APNTestTraits
import Testing

@Suite("JSON numbers match JavaScript's Number::toString", .threadPerTest)
struct JSONNumberTests {
    static let cases: [(Double, String)] = [
        (0.0, "0"),
        (-0.0, "0"),
        (3, "3"),
        (-3, "-3"),
        (1.5, "1.5"),
        (-1.5, "-1.5"),
        (0.1, "0.1"),
        (0.30000000000000004, "0.30000000000000004"),
        (1.0 / 3.0, "0.3333333333333333"),
        (123.456, "123.456"),
        (100, "100"),
        (0.5, "0.5"),
        (0.000001, "0.000001"),
        (0.0000015, "0.0000015"),
        (1e-7, "1e-7"),
        (-1e-7, "-1e-7"),
        (1.5e-7, "1.5e-7"),
        (1.23e-18, "1.23e-18"),
        (1e20, "100000000000000000000"),
        (1.2345678901234568e20, "123456789012345680000"),
        (999999999999999900000.0, "999999999999999900000"),
        (1e21, "1e+21"),
        (1.5e21, "1.5e+21"),
        (1e100, "1e+100"),
        (9007199254740991, "9007199254740991"),
        (9007199254740992, "9007199254740992"),
        (1152921504606846976.0, "1152921504606847000"),
        (9223372036854775808.0, "9223372036854776000"),
        (18446744073709551616.0, "18446744073709552000"),
        (Double.greatestFiniteMagnitude, "1.7976931348623157e+308"),
        (Double.leastNonzeroMagnitude, "5e-324"),
        (-Double.leastNonzeroMagnitude, "-5e-324"),
        (2.2250738585072014e-308, "2.2250738585072014e-308"),
        (.nan, "null"),
        (.infinity, "null"),
        (-.infinity, "null"),
    ]

    @Test("number table", arguments: cases)
    func table(_ value: Double, _ expected: String) {
        #expect(JSONValue.number(value).jsonString() == expected)
    }

    @Test("integer literals have no fraction")
    func integerLiterals() {
        let value: JSONValue = [1, -2, 1_700_000_000, 4.0, 4.25]
        #expect(value.jsonString() == "[1,-2,1700000000,4,4.25]")
    }

    @Test("integers beyond 2^53 round as a JavaScript Number does (badge Int.max)")
    func hugeIntegers() {
        #expect(Notification().setBadge(Int.max).payloadString() == #"{"aps":{"badge":9223372036854776000}}"#)
        #expect(Notification().setBadge(Int.min).payloadString() == #"{"aps":{"badge":-9223372036854776000}}"#)
        #expect(Notification().setBadge(-1).payloadString() == #"{"aps":{"badge":-1}}"#)
    }

    @Test("every written number reads back as the same double", arguments: [UInt64(1), 2, 3, 4])
    func roundTrip(_ seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        for _ in 0..<2_000 {
            let value = Double(bitPattern: random.next())
            guard value.isFinite else { continue }
            let text = JSONValue.number(value).jsonString()
            #expect(Double(text) == value, "seed \(seed): \(value) was written \(text)")
            #expect(!text.hasSuffix(".0"), "seed \(seed): \(text)")
        }
    }
}
