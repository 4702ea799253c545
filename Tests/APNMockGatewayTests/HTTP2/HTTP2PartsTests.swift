import APNTestSupport
import APNTestTraits
@testable import APNMockGateway
import APNWire
import Testing

/// The gateway's small parts: the JSON object check and the UUIDs.
@Suite(.threadPerTest) struct HTTP2PartsTests {
    @Test(arguments: [
        "{}", " {} ", "{\"aps\":{}}", #"{"a":[1,-2.5e3,0,true,false,null,"x"],"b":{"c":[[],{}]}}"#,
        #"{"s":"\" \\ \/ \b \f \n \r \t \u00e9"}"#, "{\"é\":\"日本\u{1F600}\"}", "\t{\"a\" : 1 }\r\n",
        String(repeating: "{\"a\":", count: 100) + "1" + String(repeating: "}", count: 100),
        "{\"a\":" + String(repeating: "[", count: 200) + String(repeating: "]", count: 200) + "}",
    ])
    func acceptsJSONObjects(_ text: String) {
        #expect(JSONObjectCheck.isObject(Array(text.utf8)))
    }

    @Test(arguments: [
        "", "[]", "1", "\"s\"", "null", "{", "}", "{}{}", "{} x", "{,}", "{\"a\"}", "{\"a\":}", "{\"a\":1,}",
        "{a:1}", "{'a':1}", "{\"a\":01}", "{\"a\":1.}", "{\"a\":.5}", "{\"a\":-}", "{\"a\":1e}", "{\"a\":tru}",
        "{\"a\":\"\u{01}\"}", #"{"a":"\x"}"#, #"{"a":"\u12"}"#, "{\"a\":[1,]}", "{\"a\":[1}", "{\"a\":{]}",
        "{\"a\":1 \"b\":2}", "\u{FEFF}{}", "{\"a\":1}/*c*/",
        "{\"abc", "{\"a\":\"plain text, never closed", "{\"a\":\"tab\there\"}",
        String(repeating: "{\"a\":", count: 100) + "1" + String(repeating: "}", count: 99),
    ])
    func refusesWhatIsNotOneJSONObject(_ text: String) {
        #expect(!JSONObjectCheck.isObject(Array(text.utf8)))
    }

    @Test(arguments: [[0xC0, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xE2, 0x82], [0xFF], [0x80]] as [[UInt8]])
    func refusesStringsThatAreNotUTF8(_ bytes: [UInt8]) {
        #expect(!JSONObjectCheck.isObject(Array("{\"a\":\"".utf8) + bytes + Array("\"}".utf8)))
    }

    @Test func makesDistinctLowercaseVersion4UUIDs() {
        var sequence = UUIDSequence()
        let ids = (0..<1000).map { _ in sequence.next() }
        #expect(Set(ids).count == 1000)
        for id in ids {
            #expect(UUIDText.isCanonical(id) && id == id.lowercased())
            let characters = Array(id)
            #expect(characters[14] == "4")
            #expect("89ab".contains(characters[19]))
        }
    }
}

/// An answer's id: a made one is the same text whether written as bytes or asked for as a
/// string; a sent one stays as sent, case and all.
@Suite struct AnswerIDTests {
    @Test func aMadeIDIsTheSameTextAsBytesAndAsAString() {
        var sequence = UUIDSequence()
        for _ in 0..<100 {
            let id = sequence.nextID()
            let bytes = id.withUTF8 { Array($0) }
            #expect(bytes.count == 36 && String(decoding: bytes, as: UTF8.self) == id.text)
            #expect(UUIDText.isCanonical(id.text) && id.text == id.text.lowercased())
        }
        #expect(sequence.nextID() != sequence.nextID())
    }

    @Test func aSentIDStaysAsSent() {
        let sent = AnswerID(sent: "123E4567-E89B-12D3-A456-426614174000")
        #expect(sent.text == "123E4567-E89B-12D3-A456-426614174000")
        #expect(sent.withUTF8 { Array($0) } == Array("123E4567-E89B-12D3-A456-426614174000".utf8))
        #expect(AnswerID.none.text.isEmpty && AnswerID.none.withUTF8 { $0.count } == 0)
        #expect(AnswerID(high: 0x0011_2233_4455_6677, low: 0x8899_AABB_CCDD_EEFF).text == "00112233-4455-6677-8899-aabbccddeeff")
    }
}
