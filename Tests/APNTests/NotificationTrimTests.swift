import APN
import APNWire
import Testing
import APNTestSupport
import APNTestTraits

@Suite("trim(toLength:)", .threadPerTest)
struct NotificationTrimTests {
    /// `{"aps":{"alert":""}}`: the payload around a string alert.
    static let overhead = 20

    static func note(_ text: String, encoding: PayloadEncoding = .utf8, atWordEnd: Bool = false) -> Notification {
        Notification().setAlertText(text).setEncoding(encoding).setTruncateAtWordEnd(atWordEnd)
    }

    @Test("a payload within the limit is left alone and 0 is returned")
    func underLimit() {
        let note = Self.note("hello")
        let before = note.compiledPayload()
        #expect(note.trim(toLength: 25) == 0)
        #expect(note.trim(toLength: 1000) == 0)
        #expect(note.trim() == 0)
        #expect(note.compiledPayload() == before)
    }

    @Test("plain text is cut to fit exactly")
    func plain() {
        let note = Self.note("hello world")
        #expect(note.length() == 31)
        #expect(note.trim(toLength: 25) == 6)
        #expect(note.alertText == "hello")
        #expect(note.length() == 25)
    }

    @Test("the default limit is 256, command 1's, which a default Connection sends")
    func defaultLimit() {
        #expect(Notification.defaultTrimLength == 256)
        let note = Self.note(String(repeating: "a", count: 3000))
        #expect(note.trim() == 3000 + Self.overhead - 256)
        #expect(note.length() == 256)
        let nodeDefault = Self.note(String(repeating: "a", count: 3000))
        #expect(nodeDefault.trim(toLength: Notification.payloadLimit(for: .frame)) == 3000 + Self.overhead - 2048)
        #expect(nodeDefault.length() == 2048)
    }

    /// `ab\ncd` escapes to the 6 bytes `ab\ncd`; `a\u{1}b` to the 8 bytes `a\u0001b`.
    @Test("a cut inside an escape drops the whole escape", arguments: [
        // (text, room for the escaped text, expected text, escaped bytes removed)
        ("ab\ncd", 2, "ab", 4),
        ("ab\ncd", 3, "ab", 4),
        ("ab\ncd", 4, "ab\n", 2),
        ("ab\"cd", 3, "ab", 4),
        ("ab\\cd", 3, "ab", 4),
        ("ab\\cd", 4, "ab\\", 2),
        ("a\u{1}b", 1, "a", 7),
        ("a\u{1}b", 2, "a", 7),
        ("a\u{1}b", 3, "a", 7),
        ("a\u{1}b", 4, "a", 7),
        ("a\u{1}b", 5, "a", 7),
        ("a\u{1}b", 6, "a", 7),
        ("a\u{1}b", 7, "a\u{1}", 1),
        ("\\\\\\", 5, "\\\\", 2),
        ("\"\"", 3, "\"", 2),
        // A literal backslash, "u" and up to three hex digits at the cut look like a cut
        // \uXXXX escape to node-apn's pattern, which strips them; swift-apn does the same
        // (measured under Node), so the payload is node-apn's to the byte.
        ("\\u0041", 3, "", 7),
        ("x\\u00", 5, "x", 5),
    ])
    func escapes(_ text: String, _ room: Int, _ expected: String, _ removed: Int) throws {
        let note = Self.note(text)
        let limit = Self.overhead + room
        #expect(note.trim(toLength: limit) == removed)
        #expect(note.alertText == expected)
        #expect(note.length() <= limit)
        // An empty alert string is left out, as node-apn leaves it out: `{}`.
        let alertLength = Self.overhead + JSONValue.string(expected).jsonString().utf8.count - 2
        #expect(note.length() == (expected.isEmpty ? 2 : alertLength))
        _ = try TestJSONParser.parse(note.payloadString())
    }

    @Test("UTF-8 sequences are never split", arguments: [
        ("ab😀cd", 2, "ab"), ("ab😀cd", 3, "ab"), ("ab😀cd", 5, "ab"), ("ab😀cd", 6, "ab😀"), ("ab😀cd", 7, "ab😀c"),
        ("é中", 0, ""), ("é中", 1, ""), ("é中", 2, "é"), ("é中", 4, "é"),
    ])
    func utf8(_ text: String, _ room: Int, _ expected: String) throws {
        let note = Self.note(text)
        #expect(note.trim(toLength: Self.overhead + room) > 0)
        #expect(note.alertText == expected)
        #expect(note.length() <= Self.overhead + room)
        _ = try TestJSONParser.parse(note.payloadString())
    }

    @Test("UTF-16 surrogate pairs are never split in ucs2", arguments: [
        ("ab😀cd", 4, "ab"), ("ab😀cd", 5, "ab"), ("ab😀cd", 6, "ab"), ("ab😀cd", 7, "ab"),
        ("ab😀cd", 8, "ab😀"), ("ab😀cd", 9, "ab😀"), ("ab😀cd", 10, "ab😀c"),
        ("😀😀", 3, ""), ("😀😀", 4, "😀"), ("😀😀", 7, "😀"),
    ])
    func ucs2(_ text: String, _ room: Int, _ expected: String) throws {
        let note = Self.note(text, encoding: .ucs2)
        let limit = Self.overhead * 2 + room
        #expect(note.trim(toLength: limit) > 0)
        #expect(note.alertText == expected)
        #expect(note.length() <= limit)
        #expect(note.length() % 2 == 0)
    }

    @Test("the returned count is in escaped bytes of the encoding")
    func countInEncoding() {
        let note = Self.note("abc\ndef", encoding: .ucs2)
        #expect(note.length() == (Self.overhead + 8) * 2)
        // Room for "abc" and half of "\n": the escape goes whole.
        #expect(note.trim(toLength: (Self.overhead + 4) * 2) == 10)
        #expect(note.alertText == "abc")
    }

    @Test("truncateAtWordEnd cuts back to the last space", arguments: [
        ("hello world foo", 13, "hello world"),
        ("hello world foo", 8, "hello"),
        ("hello world foo", 11, "hello world"),  // the next character is a space: keep
        ("hello world foo", 12, "hello world"),
        ("hello world foo", 6, "hello"),  // cut after the space: the space goes too
        ("abcdefgh", 5, "abcde"),  // no space: the hard cut stays
        ("hi\nthere you", 10, "hi\nthere"),
        ("a 😀b", 4, "a"),
    ])
    func wordEnd(_ text: String, _ room: Int, _ expected: String) {
        let note = Self.note(text, atWordEnd: true)
        let limit = Self.overhead + room
        #expect(note.trim(toLength: limit) > 0)
        #expect(note.alertText == expected)
        #expect(note.length() <= limit)
    }

    /// Each row measured with node-apn 1.7.8 under Node: `trim(20 + room)` on
    /// `setAlertText(text)`, with and without truncateAtWordEnd.
    @Test("node-apn's cut to the byte, quirks included", arguments: [
        // A cut inside é looks past it: a space there ends the word, so "caf" stays.
        NodeCut("abc café more", room: 8, atWordEnd: true, text: "abc caf", removed: 7),
        NodeCut("abc cafée more", room: 8, atWordEnd: true, text: "abc", removed: 12),
        NodeCut("abc cafée more", room: 8, atWordEnd: false, text: "abc caf", removed: 8),
        // A cut inside an emoji (two UTF-16 units) never ends a word.
        NodeCut("a 😀 b", room: 3, atWordEnd: true, text: "a", removed: 7),
        NodeCut("a 😀 b", room: 3, atWordEnd: false, text: "a ", removed: 6),
        // A literal backslash, u and up to three hex digits at the cut look like a cut
        // \uXXXX escape to node-apn and go too ...
        NodeCut(#"x \u0 yy"#, room: 5, atWordEnd: false, text: "x ", removed: 7),
        NodeCut(#"x \u0 yy"#, room: 5, atWordEnd: true, text: "x", removed: 8),
        NodeCut("ab\\u00\u{1}cd", room: 7, atWordEnd: false, text: "ab", removed: 13),
        // ... unless the cut falls inside the next escape, which goes instead.
        NodeCut("ab\\u00\u{1}cd", room: 9, atWordEnd: false, text: #"ab\u00"#, removed: 8),
    ])
    func nodeCut(_ cut: NodeCut) {
        let note = Self.note(cut.text, atWordEnd: cut.atWordEnd)
        #expect(note.trim(toLength: Self.overhead + cut.room) == cut.removed)
        #expect(note.alertText == cut.expected)
    }

    struct NodeCut: Sendable, CustomTestStringConvertible {
        let text: String
        let room: Int
        let atWordEnd: Bool
        let expected: String
        let removed: Int

        init(_ text: String, room: Int, atWordEnd: Bool, text expected: String, removed: Int) {
            self.text = text
            self.room = room
            self.atWordEnd = atWordEnd
            self.expected = expected
            self.removed = removed
        }

        var testDescription: String { "\(text.debugDescription) room \(room)\(atWordEnd ? " at word end" : "")" }
    }

    @Test("without truncateAtWordEnd the cut is hard")
    func hardCut() {
        let note = Self.note("hello world foo")
        note.trim(toLength: Self.overhead + 8)
        #expect(note.alertText == "hello wo")
    }

    @Test("a dictionary alert keeps its other keys and only the body is cut")
    func dictionaryBody() {
        let note = Notification().setAlertTitle("Title").setAlertText("hello world")
        let length = note.length()
        #expect(note.trim(toLength: length - 6) == 6)
        #expect(note.payloadString() == #"{"aps":{"alert":{"title":"Title","body":"hello"}}}"#)
        #expect(note.length() == length - 6)
    }

    @Test("no alert text: nothing changes and the excess comes back negated")
    func noText() throws {
        let cases: [Notification] = [
            try Notification(payload: ["data": .string(String(repeating: "x", count: 50))]),
            Notification().setAlertTitle(String(repeating: "t", count: 50)),
            Notification().setAlertText("").setBadge(1).setCategory(String(repeating: "c", count: 50)),
            Notification().setAlertText(String(repeating: "a", count: 50)).setMDM(String(repeating: "m", count: 50)),
        ]
        for note in cases {
            let before = note.compiledPayload()
            #expect(note.trim(toLength: 30) == 30 - before.count)
            #expect(note.compiledPayload() == before)
        }
    }

    @Test("text too short to help: negative, and nothing changes")
    func tooShort() throws {
        let note = try Notification(payload: ["data": .string(String(repeating: "x", count: 100))])
            .setAlertText("hi\n")
        let before = note.compiledPayload()
        let excess = before.count - 50
        #expect(note.trim(toLength: 50) == 4 - excess)
        #expect(note.alertText == "hi\n")
        #expect(note.compiledPayload() == before)
    }

    @Test("removing exactly the whole text leaves an empty alert string, which is left out")
    func wholeText() {
        let note = Self.note("abc")
        #expect(note.trim(toLength: Self.overhead) == 3)
        #expect(note.alertText == "")
        // node-apn leaves an empty alert out too, but then falls back to the text it had
        // compiled before the cut (Fixtures/golden/README.md).
        #expect(note.payloadString() == "{}")
        #expect(note.trim(toLength: Self.overhead - 1) == 0)
    }

    @Test("trimmed notifications validate for their command")
    func thenValidate() throws {
        let note = Notification().setBadge(1).setAlertText(String(repeating: "word ", count: 100))
        note.truncateAtWordEnd = true
        #expect(note.trim(toLength: Notification.payloadLimit(for: .enhanced)) > 0)
        try note.validate(for: .enhanced)
        #expect(note.alertText?.hasSuffix("word") == true)
    }
}
