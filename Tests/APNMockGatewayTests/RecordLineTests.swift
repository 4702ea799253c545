import APNSupport
import APNTLS
import APNWire
import Foundation
@testable import APNMockGateway
import APNTestSupport
import APNTestTraits
import Testing

/// The record file's line formatting (`apn mock-gateway --record`) piece by piece, against
/// the standard library and `JSONStringEscaping`, which built the lines before (issue #26); the lines
/// themselves are pinned byte for byte in apnTests' `ApnRecordFileTests`.
@Suite(.threadPerTest) struct RecordLineTests {
    /// Formats one piece into a fresh buffer and returns its text.
    private func formatted(_ write: (inout RecordLineCursor) -> Void) -> String {
        var buffer = RecordLineBuffer(capacity: 0)
        buffer.appendLine(maximumLength: 4096, write)
        return buffer.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
    }

    @Test(arguments: [0, 1, 9, 10, 99, 4_294_967_295, -1, -10, Int.max, Int.min])
    func integersAreWrittenAsSwiftPrintsThem(value: Int) {
        #expect(formatted { $0.integer(value) } == String(value))
    }

    @Test func absentIntegersAreNull() {
        #expect(formatted { $0.integer(nil as Int?) } == "null")
    }

    @Test func hexIsLowercaseTwoDigitsAByte() {
        let bytes: [UInt8] = [0x00, 0x0F, 0xA5, 0xFF]
        #expect(formatted { line in bytes.withUnsafeBytes { line.hex($0) } } == "000fa5ff")
    }

    /// Every ASCII character, and text beyond ASCII, quoted as `JSONStringEscaping.quoted` quotes it.
    @Test func quotingAgreesWithJSONStringEscaping() {
        let texts = (0...0x7F).map { String(UnicodeScalar(UInt8($0))) } + ["é😀", "a\"b\\c/\u{7F}\u{2028}", ""]
        for text in texts {
            #expect(formatted { $0.quoted(text) } == JSONStringEscaping.quoted(text), "\(Array(text.utf8))")
        }
    }

    /// The check that chooses `payload` or `payload_base64` decides as
    /// `String(validating:as:)` did: every sequence of one or two bytes, every lead byte with
    /// every second byte and a continuation or not after, and the edges of Table 3-7.
    @Test func utf8CheckAgreesWithTheStandardLibrary() {
        var cases: [[UInt8]] = (0...0xFF).map { [UInt8($0)] }
        for lead in 0...0xFF {
            for second in 0...0xFF {
                cases.append([UInt8(lead), UInt8(second)])
                if lead >= 0xE0 {
                    cases.append([UInt8(lead), UInt8(second), 0x80])
                    cases.append([UInt8(lead), UInt8(second), 0xBF, 0xBF])
                    cases.append([UInt8(lead), UInt8(second), 0x80, 0x41])
                }
            }
        }
        cases += [[0xF4, 0x8F, 0xBF, 0xBF], [0xF4, 0x90, 0x80, 0x80], [0xED, 0x9F, 0xBF], [0xED, 0xA0, 0x80],
                  [0x41, 0xC3], [0x41, 0xE2, 0x82], Array("{\"a\":\"é😀\"}".utf8)]
        let disagreeing = cases.filter { bytes in
            bytes.withUnsafeBytes { RecordLineCursor.isUTF8($0) } != (String(validating: bytes, as: UTF8.self) != nil)
        }
        #expect(disagreeing.isEmpty, "\(disagreeing.prefix(5))")
    }

    /// A buffer much smaller than the lines grows as they come, and the lines are those the
    /// records make, batch after batch, each ending where the next starts.
    @Test func linesOfManyRecordsInBatchesIntoAGrowingBuffer() throws {
        let harness = try Harness { $0.recordRetention = .unlimited }
        let client = try harness.connect()
        try client.send(bulkFrames(0..<3000))
        #expect(harness.gateway.waitForRecords(count: 3000, timeout: .seconds(30)))

        var buffer = RecordLineBuffer(capacity: 0)
        var position = 0
        var batches = 0
        while true {
            let next = harness.gateway.appendRecordLines(from: position, limit: 1024, to: &buffer)
            guard next > position else { break }
            position = next
            batches += 1
        }
        #expect(position == 3000 && batches == 3)
        let lines = buffer.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }.split(separator: "\n").map(String.init)
        let expected = (0..<3000).map { id in
            #"{"connection":1,"seq":\#(id + 1),"command":1,"identifier":\#(id),"token":"\#(hexString(bulkToken(UInt32(id))))","#
                + #""payload":\#(JSONStringEscaping.quoted(String(decoding: bulkPayload(UInt32(id)), as: UTF8.self))),"expiry":0,"priority":null}"#
        }
        #expect(lines == expected)
    }

    /// Records released are skipped: the lines start at the oldest kept, as `records(from:)` does.
    @Test func releasedRecordsAreSkipped() throws {
        let harness = try Harness { $0.recordRetention = .unlimited }
        let client = try harness.connect()
        try client.send(bulkFrames(0..<10))
        #expect(harness.gateway.waitForRecords(count: 10, timeout: .seconds(10)))
        harness.gateway.releaseRecords(through: 4)

        var buffer = RecordLineBuffer()
        #expect(harness.gateway.appendRecordLines(from: 0, limit: 3, to: &buffer) == 7)
        let sequences = buffer.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }.split(separator: "\n").map {
            $0.split(separator: ",")[1]
        }
        #expect(sequences == [#""seq":5"#, #""seq":6"#, #""seq":7"#])
        #expect(harness.gateway.appendRecordLines(from: 10, limit: 3, to: &buffer) == 10)
    }
}
