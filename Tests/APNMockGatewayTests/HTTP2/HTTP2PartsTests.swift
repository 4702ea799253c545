import APNTestSupport
import APNTestTraits
import APNMockGateway
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
