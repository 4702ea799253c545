import APN
import Testing
import APNTestSupport
import APNTestTraits

@Suite("JSONParser reads JSON text into ordered values", .threadPerTest)
struct JSONParserTests {
    static let vectors: [(String, JSONValue)] = [
        ("{}", .object([:])),
        ("[]", .array([])),
        (" \t\r\n{ } ", .object([:])),
        ("true", .bool(true)),
        ("false", .bool(false)),
        ("null", .null),
        ("0", .number(0)),
        ("-0", .number(-0.0)),
        ("12.5e-1", .number(1.25)),
        ("1E+2", .number(100)),
        ("\"\"", .string("")),
        (#""a\"b\\c\/d\b\f\n\r\t""#, .string("a\"b\\c/d\u{8}\u{c}\n\r\t")),
        (#""\u0041\u00e9\u20AC""#, .string("Aé€")),
        (#""\uD83D\uDE00""#, .string("😀")),
        ("\"é😀\"", .string("é😀")),
        (#"{"b":1,"a":[true,null,"x"],"c":{"d":{}}}"#, ["b": 1, "a": [true, nil, "x"], "c": ["d": [:]]]),
        (#"[1,[2,[3]]]"#, [1, [2, [3]]]),
    ]

    @Test("literal vectors", arguments: 0..<vectors.count)
    func literal(_ index: Int) throws {
        let (text, expected) = Self.vectors[index]
        let value = try JSONParser().parse(text)
        #expect(value == expected, "\(text)")
        #expect(try JSONParser().parse(bytes: Array(text.utf8)) == expected)
    }

    @Test("object keys keep the text's order, including array-index keys")
    func keyOrder() throws {
        let object = try JSONParser().parseObject(#"{"z":1,"2":2,"a":3,"1":4}"#)
        #expect(object.keys == ["z", "2", "a", "1"])
    }

    @Test("a number written back is JavaScript's form of the double read")
    func numbers() throws {
        #expect(try JSONParser().parse("1.0").jsonString() == "1")
        #expect(try JSONParser().parse("1e400") == .number(.infinity))
        #expect(try JSONParser().parse("-1e-400") == .number(-0.0))
        #expect(try JSONParser().parse("9007199254740993") == .number(9_007_199_254_740_992))
    }

    static let malformed: [(text: String, kind: JSONParseError.Kind, offset: Int)] = [
        ("", .unexpectedEnd, 0),
        ("   ", .unexpectedEnd, 3),
        ("{", .unexpectedEnd, 1),
        ("{\"a\"", .unexpectedEnd, 4),
        ("{\"a\":", .unexpectedEnd, 5),
        ("[1,", .unexpectedEnd, 3),
        ("\"abc", .unexpectedEnd, 4),
        ("{a:1}", .unexpectedByte, 1),
        ("{\"a\" 1}", .unexpectedByte, 5),
        ("{\"a\":1,}", .unexpectedByte, 7),
        ("[1,]", .unexpectedByte, 3),
        ("[1 2]", .unexpectedByte, 3),
        ("{\"a\":1 \"b\":2}", .unexpectedByte, 7),
        ("'a'", .unexpectedByte, 0),
        ("\u{FEFF}{}", .unexpectedByte, 0),
        ("NaN", .unexpectedByte, 0),
        ("tru", .unexpectedEnd, 3),
        ("trUe", .invalidLiteral, 0),
        ("[nul]", .invalidLiteral, 1),
        ("01", .invalidNumber, 1),
        ("-", .unexpectedEnd, 1),
        ("-a", .invalidNumber, 1),
        ("1.", .unexpectedEnd, 2),
        ("1.e5", .invalidNumber, 2),
        ("1e", .unexpectedEnd, 2),
        ("1e+", .unexpectedEnd, 3),
        ("[1ex]", .invalidNumber, 3),
        ("+1", .unexpectedByte, 0),
        (".5", .unexpectedByte, 0),
        (#""\x""#, .invalidEscape, 1),
        (#""ab\u12G4""#, .invalidEscape, 3),
        (#""\uD83D""#, .loneSurrogate, 1),
        (#""\uD83Dx""#, .loneSurrogate, 1),
        (#""\uD83D\u0041""#, .loneSurrogate, 1),
        (#""a\uDE00""#, .loneSurrogate, 2),
        ("\"a\u{1}\"", .controlCharacter, 2),
        ("\"a\nb\"", .controlCharacter, 2),
        ("{} {}", .trailingData, 3),
        ("1 2", .trailingData, 2),
        (#"{"a":1,"b":2,"a":3}"#, .duplicateKey, 13),
    ]

    @Test("malformed text: the kind and the byte offset", arguments: 0..<malformed.count)
    func malformedText(_ index: Int) {
        let (text, kind, offset) = Self.malformed[index]
        #expect(throws: JSONParseError.self) { try JSONParser().parse(text) }
        do {
            _ = try JSONParser().parse(text)
        } catch {
            #expect(error.kind == kind, "\(text.debugDescription): \(error)")
            #expect(error.offset == offset, "\(text.debugDescription): \(error)")
        }
    }

    static let invalidUTF8: [(bytes: [UInt8], kind: JSONParseError.Kind, offset: Int)] = [
        ([0x22, 0x80, 0x22], .invalidUTF8, 1),  // stray continuation
        ([0x22, 0xC0, 0xAF, 0x22], .invalidUTF8, 1),  // overlong '/'
        ([0x22, 0xC1, 0xBF, 0x22], .invalidUTF8, 1),  // overlong
        ([0x22, 0xE0, 0x80, 0xAF, 0x22], .invalidUTF8, 2),  // overlong 3-byte
        ([0x22, 0xED, 0xA0, 0x80, 0x22], .invalidUTF8, 2),  // encoded surrogate U+D800
        ([0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], .invalidUTF8, 2),  // above U+10FFFF
        ([0x22, 0xF5, 0x80, 0x80, 0x80, 0x22], .invalidUTF8, 1),
        ([0x22, 0xFF, 0x22], .invalidUTF8, 1),
        ([0x22, 0x61, 0xE2, 0x82, 0x22], .invalidUTF8, 4),  // truncated € before the quote
        ([0x22, 0xE2, 0x82], .unexpectedEnd, 3),  // truncated at the end
        ([0x7B, 0xC3, 0xA9, 0x7D], .unexpectedByte, 1),  // non-ASCII outside a string
    ]

    @Test("invalid UTF-8: the offending byte", arguments: 0..<invalidUTF8.count)
    func invalidUTF8Bytes(_ index: Int) {
        let (bytes, kind, offset) = Self.invalidUTF8[index]
        do {
            _ = try JSONParser().parse(bytes: bytes)
            Issue.record("accepted \(bytes)")
        } catch {
            #expect(error.kind == kind, "\(bytes): \(error)")
            #expect(error.offset == offset, "\(bytes): \(error)")
        }
    }

    @Test("well-formed UTF-8 at the edges of each range is accepted")
    func validUTF8Edges() throws {
        let scalars: [Unicode.Scalar] = ["\u{80}", "\u{7FF}", "\u{800}", "\u{D7FF}", "\u{E000}", "\u{FFFF}", "\u{10000}", "\u{10FFFF}"]
        for scalar in scalars {
            let text = "\"\(scalar)\""
            #expect(try JSONParser().parse(bytes: Array(text.utf8)) == .string(String(scalar)))
        }
    }

    @Test("nesting deeper than maximumDepth is refused at the opening bracket")
    func depthLimit() throws {
        let parser = JSONParser(maximumDepth: 3)
        #expect(try parser.parse("[[[1]]]") == [[[1]]])
        #expect(try parser.parse(#"{"a":{"b":[]}}"#) == ["a": ["b": []]])
        do {
            _ = try parser.parse("[[[[1]]]]")
            Issue.record("accepted depth 4")
        } catch {
            #expect(error.kind == .tooDeep)
            #expect(error.offset == 3)
        }
        // The default limit keeps a deep attack from reaching the stack.
        let deep = String(repeating: "[", count: 100_000)
        #expect(throws: JSONParseError.self) { try JSONParser().parse(deep) }
    }

    @Test("text longer than maximumSize is refused before it is read")
    func sizeLimit() throws {
        let parser = JSONParser(maximumSize: 8)
        #expect(try parser.parse("[1,2,3] ") == [1, 2, 3])
        do {
            _ = try parser.parse("[1,2,3]  ")
            Issue.record("accepted 9 bytes")
        } catch {
            #expect(error.kind == .tooLarge)
            #expect(error.offset == 8)
        }
    }

    @Test("parseObject refuses other values at their first byte")
    func notAnObject() {
        do {
            _ = try JSONParser().parseObject("  [1]")
            Issue.record("accepted an array")
        } catch {
            #expect(error.kind == .notAnObject)
            #expect(error.offset == 2)
        }
    }

    @Test("what the library writes reads back equal")
    func writerRoundTrip() throws {
        let value: JSONValue = [
            "s": "quote \" backslash \\ control \u{1} \u{1F} line\u{2028} emoji 😀",
            "n": [0, -1, 1.5, 1e-7, 1e21, 123_456_789],
            "o": ["z": true, "a": nil, "m": [:]],
        ]
        #expect(try JSONParser().parse(value.jsonString()) == value)
    }
}
