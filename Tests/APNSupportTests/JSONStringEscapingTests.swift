import APNSupport
import Testing

/// The one escaping rule set every JSON text we write follows: `JSON.stringify`'s.
struct JSONStringEscapingTests {
    @Test func theTwoCharacterEscapesAreJavaScriptsAndOtherControlsAreHex() {
        let text = "\u{00}\u{07}\u{08}\t\n\u{0B}\u{0C}\r\u{1F}\"\\/\u{7F}é😀\u{2028}"
        #expect(JSONStringEscaping.quoted(text) == #""\u0000\u0007\b\t\n\u000b\f\r\u001f\"\\/"# + "\u{7F}é😀\u{2028}\"")
    }

    @Test func theByteRulesAgreeWithTheStringForm() {
        for byte in UInt8(0)...0x7F {
            let escaped = JSONStringEscaping.escaped(String(UnicodeScalar(byte)))
            #expect(JSONStringEscaping.needsEscape(byte) == (escaped.utf8.count > 1), "\(byte)")
            if let letter = JSONStringEscaping.shortEscape(for: byte) {
                #expect(Array(escaped.utf8) == [UInt8(ascii: "\\"), letter])
            } else if JSONStringEscaping.needsEscape(byte) {
                #expect(escaped.utf8.count == 6 && escaped.hasPrefix("\\u00"))
            }
        }
    }

    @Test func emptyTextIsTwoQuotes() {
        #expect(JSONStringEscaping.quoted("") == "\"\"")
    }
}

/// Duration conversions for Dispatch and `poll()`.
struct DurationConversionTests {
    @Test func wholeNanosecondsRoundDownAndCap() {
        #expect(Duration.seconds(1).wholeNanoseconds == 1_000_000_000)
        #expect(Duration.nanoseconds(-5).wholeNanoseconds == -5)
        #expect((Duration.nanoseconds(1) / 2).wholeNanoseconds == 0)
        #expect(Duration.seconds(Int64(1) << 40).wholeNanoseconds == (1 << 32) * 1_000_000_000)
    }

    @Test func aPassedDeadlineIsAZeroPollTimeoutAndAFarOneIsClamped() {
        let now = ContinuousClock.now
        #expect((now - .seconds(1)).pollTimeout == 0)
        #expect((now + .seconds(Int64(1) << 40)).pollTimeout == Int32.max)
    }
}

/// Whole milliseconds, for C libraries' timeouts.
struct WholeMillisecondsTests {
    @Test func roundDown() {
        #expect(Duration.seconds(2).wholeMilliseconds == 2_000)
        #expect(Duration.microseconds(1_999).wholeMilliseconds == 1)
        #expect(Duration.zero.wholeMilliseconds == 0)
    }
}
