import APN
import APNTestSupport
import APNTestTraits
import Testing

@Suite("trim(toLength:) randomized", .threadPerTest)
struct TrimPropertyTests {
    /// Pieces that stress every rule: escapes of each width, multi-byte UTF-8, surrogate
    /// pairs, combining marks, ZWJ sequences, U+2028, and plenty of spaces for word ends.
    static let pieces: [String] = [
        "a", "b", "Z", "0", " ", " ", " ", "\n", "\t", "\r", "\"", "\\", "/", "\u{0}", "\u{1}", "\u{1F}",
        "\u{7F}", "é", "e\u{301}", "中", "\u{2028}", "😀", "👍🏽", "👨‍👩‍👧", "🇫🇷", "𝄞", "\\u", "\\u00", "word",
    ]

    static func randomText(using random: inout SplitMix64) -> String {
        let count = Int.random(in: 0..<60, using: &random)
        return (0..<count).map { _ in pieces.randomElement(using: &random)! }.joined()
    }

    static func randomNotification(using random: inout SplitMix64) throws -> (Notification, String) {
        let text = randomText(using: &random)
        let note = Notification()
        if Bool.random(using: &random) {
            try note.setCustom("extra", .string(randomText(using: &random)))
        }
        switch Int.random(in: 0..<4, using: &random) {
        case 0: note.setAlertText(text)
        case 1: note.setAlertTitle(randomText(using: &random)).setAlertText(text)
        case 2: note.setAlertText(text).setLocArgs([randomText(using: &random)])
        default: note.setBadge(Int.random(in: 0..<1000, using: &random)).setAlertText(text)
        }
        note.encoding = Bool.random(using: &random) ? .utf8 : .ucs2
        note.truncateAtWordEnd = Bool.random(using: &random)
        return (note, text)
    }

    @Test("length() ≤ limit whenever the result is ≥ 0; the payload stays valid JSON", arguments: [
        UInt64(0x5EED_0001), 0x5EED_0002, 0x5EED_0003, 0x5EED_0004,
    ])
    func property(_ seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        for iteration in 0..<500 {
            let context = "seed 0x\(String(seed, radix: 16)), iteration \(iteration)"
            let (note, text) = try Self.randomNotification(using: &random)
            let before = note.compiledPayload()
            let limit = Int.random(in: 0...(before.count + 8), using: &random)

            let result = note.trim(toLength: limit)
            let after = note.compiledPayload()
            let payload = note.payloadString()

            if result >= 0 {
                #expect(note.length() <= limit, "\(context): \(note.length()) > \(limit)")
            }
            if result <= 0 {
                #expect(after == before, "\(context): changed although trim returned \(result)")
            }
            if result > 0 {
                // Exactly the reported number of bytes went; when the text is gone, an alert
                // string is left out altogether (an empty string, as in node-apn).
                if note.alert == .string("") {
                    #expect(after.count < before.count - result, "\(context)")
                } else {
                    #expect(after.count == before.count - result, "\(context)")
                }
                // The new text is a prefix of the old one, by whole code points.
                let trimmed = Array(note.alertText?.unicodeScalars ?? "".unicodeScalars)
                let original = Array(text.unicodeScalars)
                #expect(Array(original.prefix(trimmed.count)) == trimmed, "\(context): not a prefix")
            }
            #expect(result != 0 || before.count <= limit, "\(context)")

            // The bytes decode in their encoding and parse as strict JSON.
            switch note.encoding {
            case .utf8:
                #expect(String(validating: after, as: UTF8.self) != nil, "\(context): bad UTF-8")
            case .ucs2:
                #expect(after.count % 2 == 0, "\(context)")
                let units = stride(from: 0, to: after.count, by: 2).map {
                    UInt16(after[$0]) | UInt16(after[$0 + 1]) << 8
                }
                #expect(String(validating: units, as: UTF16.self) != nil, "\(context): lone surrogate")
            }
            do {
                _ = try TestJSONParser.parse(payload)
            } catch {
                Issue.record("\(context): \(error) in \(payload)")
            }
        }
    }
}
