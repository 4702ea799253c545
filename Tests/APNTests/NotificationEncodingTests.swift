import APN
import Testing
import APNTestSupport
import APNTestTraits

@Suite("Payload encoding: utf8 and ucs2 (UTF-16LE)", .threadPerTest)
struct NotificationEncodingTests {
    /// `{"aps":{"alert":""}}` is 20 ASCII characters.
    static let emptyAlertLength = 20

    @Test("an emoji alert: 24 bytes in utf8, 44 in ucs2")
    func emojiLengths() {
        let note = Notification().setAlertText("😀")
        #expect(note.length() == Self.emptyAlertLength + 4)
        note.encoding = .ucs2
        #expect(note.length() == (Self.emptyAlertLength + 2) * 2)
        #expect(note.length() == 44)
        #expect(note.payloadString() == #"{"aps":{"alert":"😀"}}"#)
    }

    @Test("ucs2 bytes are UTF-16 little-endian, surrogate pairs included")
    func ucs2Bytes() {
        let note = Notification().setEncoding(.ucs2).setAlertText("é😀")
        let bytes = note.compiledPayload()
        #expect(Array(bytes.prefix(4)) == [0x7B, 0x00, 0x22, 0x00])  // {"
        // ... "alert":" then é (U+00E9), then U+1F600 as D83D DE00, then "}}
        let tail: [UInt8] = [0xE9, 0x00, 0x3D, 0xD8, 0x00, 0xDE, 0x22, 0x00, 0x7D, 0x00, 0x7D, 0x00]
        #expect(Array(bytes.suffix(tail.count)) == tail)
        var expected: [UInt8] = []
        for unit in #"{"aps":{"alert":"é😀"}}"#.utf16 {
            expected.append(UInt8(unit & 0xFF))
            expected.append(UInt8(unit >> 8))
        }
        #expect(bytes == expected)
    }

    @Test("lengths in both encodings", arguments: [
        ("a", 21, 42),
        ("é", 22, 42),
        ("中", 23, 42),
        ("😀😀", 28, 48),
        ("\n", 22, 44),
        ("\u{1}", 26, 52),
        ("👨‍👩‍👧", 38, 56),
    ])
    func lengths(_ text: String, _ utf8: Int, _ ucs2: Int) {
        let note = Notification().setAlertText(text)
        #expect(note.length() == utf8)
        #expect(note.setEncoding(.ucs2).length() == ucs2)
        #expect(note.setEncoding(.utf8).length() == utf8)
    }

    @Test("escapes count two bytes per character in ucs2")
    func escapesInUCS2() {
        let note = Notification().setEncoding(.ucs2).setAlertText("\"")
        #expect(note.length() == (Self.emptyAlertLength + 2) * 2)
    }

    @Test("switching the encoding recompiles")
    func switching() {
        let note = Notification().setAlertText("x")
        let utf8 = note.compiledPayload()
        note.encoding = .ucs2
        #expect(note.compiledPayload().count == utf8.count * 2)
        note.encoding = .utf8
        #expect(note.compiledPayload() == utf8)
    }
}
