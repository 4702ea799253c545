import APN
import Testing
import APNTestSupport
import APNTestTraits

@Suite("JSON string escaping matches JSON.stringify", .threadPerTest)
struct JSONEscapingTests {
    /// JSON.stringify's output for every code point below U+0020.
    static let controlEscapes: [(UInt32, String)] = (UInt32(0)..<0x20).map { value in
        let expected: String
        switch value {
        case 0x08: expected = #"\b"#
        case 0x09: expected = #"\t"#
        case 0x0A: expected = #"\n"#
        case 0x0C: expected = #"\f"#
        case 0x0D: expected = #"\r"#
        default:
            let hex = String(value, radix: 16)
            expected = #"\u00"# + (hex.count == 1 ? "0" + hex : hex)
        }
        return (value, expected)
    }

    @Test("every control character", arguments: controlEscapes)
    func control(_ value: UInt32, _ expected: String) {
        let text = String(Character(Unicode.Scalar(value)!))
        #expect(JSONValue.string(text).jsonString() == "\"\(expected)\"")
        #expect(JSONValue.string("a\(text)b").jsonString() == "\"a\(expected)b\"")
    }

    @Test("spot checks of the control table use lowercase hex")
    func lowercaseHex() {
        #expect(JSONValue.string("\u{1F}\u{0B}\u{00}\u{1B}").jsonString() == #""\u001f\u000b\u0000\u001b""#)
    }

    @Test("other characters", arguments: [
        ("\"", #""\"""#),
        ("\\", #""\\""#),
        ("/", #""/""#),
        ("</script>", #""</script>""#),
        ("\u{7F}", "\"\u{7F}\""),
        ("\u{2028}\u{2029}", "\"\u{2028}\u{2029}\""),
        ("😀", "\"😀\""),
        ("é中𝄞", "\"é中𝄞\""),
        ("👨‍👩‍👧", "\"👨‍👩‍👧\""),
        ("", #""""#),
        (#"a"b\c"#, #""a\"b\\c""#),
        ("\\n", #""\\n""#),
    ])
    func others(_ input: String, _ expected: String) {
        #expect(JSONValue.string(input).jsonString() == expected)
    }

    @Test("non-ASCII is raw UTF-8 bytes")
    func rawUTF8() {
        #expect(JSONValue.string("😀").jsonBytes() == [0x22, 0xF0, 0x9F, 0x98, 0x80, 0x22])
        #expect(JSONValue.string("\u{2028}").jsonBytes() == [0x22, 0xE2, 0x80, 0xA8, 0x22])
    }

    @Test("keys are escaped like strings")
    func keys() {
        let object: JSONObject = ["a\"b": 1, "\n": 2, "😀": 3]
        #expect(object.jsonString() == #"{"a\"b":1,"\n":2,"😀":3}"#)
    }

    @Test("a long string with escapes spread through it")
    func longString() {
        let piece = "abc\"def\\ghi\n"
        let text = String(repeating: piece, count: 100)
        let expected = "\"" + String(repeating: #"abc\"def\\ghi\n"#, count: 100) + "\""
        #expect(JSONValue.string(text).jsonString() == expected)
    }
}
