import APN
import APNWire
import Testing
import APNTestSupport
import APNTestTraits

@Suite("Notification(payloadJSON:) sends the text as given", .threadPerTest)
struct NotificationJSONTextTests {
    @Test("key order, number text and escapes are kept; whitespace between tokens is not")
    func asGiven() throws {
        let text = """
            { "z": 1.50, "2": 1e3, "aps" : { "badge": 3, "alert": "caf\\u00e9 \\/ ok" },
              "a": [ -0.0, 10000000000000000000001 ] }
            """
        let note = try Notification(payloadJSON: text)
        #expect(
            note.payloadString()
                == #"{"z":1.50,"2":1e3,"aps":{"badge":3,"alert":"caf\u00e9 \/ ok"},"a":[-0.0,10000000000000000000001]}"#)
        #expect(note.payload.keys == ["z", "2", "aps", "a"])
        try note.validate(for: .frame)
    }

    @Test("bytes and String give the same notification")
    func bytes() throws {
        let text = #"{"aps":{"alert":"é"}}"#
        #expect(try Notification(payloadJSON: Array(text.utf8)).compiledPayload() == Array(text.utf8))
    }

    @Test("changing a payload property compiles from the properties again")
    func changeDropsGivenText() throws {
        let note = try Notification(payloadJSON: #"{"n":1.0,"aps":{"alert":"Hi"}}"#)
        note.setBadge(2)
        #expect(note.payloadString() == #"{"n":1,"aps":{"alert":"Hi","badge":2}}"#)
    }

    @Test("ucs2 encoding re-encodes the given text")
    func encoding() throws {
        let note = try Notification(payloadJSON: #"{"n":1.0}"#)
        note.encoding = .ucs2
        #expect(note.payloadString() == #"{"n":1.0}"#)
        #expect(note.length() == 18)
    }

    @Test("malformed text is invalidJSON with the parser's kind and offset")
    func malformed() {
        do {
            _ = try Notification(payloadJSON: #"{"aps":{"badge":01}}"#)
            Issue.record("accepted")
        } catch {
            #expect(error.code == .invalidJSON)
            #expect(error.jsonParseError?.kind == .invalidNumber)
            #expect(error.jsonParseError?.offset == 17)
            #expect(error.description.contains("byte 17"))
        }
    }

    @Test("a top-level array and an aps string are refused")
    func wrongShapes() {
        #expect(throws: APNError.self) { try Notification(payloadJSON: "[1]") }
        do {
            _ = try Notification(payloadJSON: #"{"aps":"x"}"#)
            Issue.record("accepted")
        } catch {
            #expect(error.code == .reservedPayloadKey)
        }
    }

    @Test("a given payload over the limit fails validation like any other")
    func tooLarge() throws {
        let text = #"{"aps":{"alert":""# + String(repeating: "x", count: 300) + #""}}"#
        let note = try Notification(payloadJSON: text)
        #expect(throws: APNError.self) { try note.validate(for: .enhanced) }
    }
}
