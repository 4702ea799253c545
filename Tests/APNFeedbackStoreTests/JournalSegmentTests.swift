@testable import APNFeedbackStore
import Testing

/// SQLite's journal segment (schema 5): one group commit's rows of a tenant in one value.
/// Against a literal vector, round trips, and every cut or altered form refused as corrupt.
@Suite struct JournalSegmentTests {
    static func row(_ seq: Int64, token: [UInt8], payload: String, answer: Int64? = nil) -> BridgeStateStore.JournalRow {
        BridgeStateStore.JournalRow(
            instance: 7, seq: seq, tenant: "app", token: token, payload: Array(payload.utf8), expiry: 0x0102_0304,
            priority: 10, answer: answer, recordedAt: 0x0A0B_0C0D)
    }

    @Test func oneRowIsItsLittleEndianFieldsThenItsBytes() throws {
        let row = Self.row(0x11, token: [0xAB, 0xCD], payload: "{}")
        let expected: [UInt8] =
            [0x01]  // version
            + [0x11, 0, 0, 0, 0, 0, 0, 0]  // seq
            + [0x0D, 0x0C, 0x0B, 0x0A, 0, 0, 0, 0]  // recorded at
            + [0x04, 0x03, 0x02, 0x01]  // expiry
            + [0x0A]  // priority
            + [0x02, 0x00]  // token length
            + [0x02, 0x00, 0x00, 0x00]  // payload length
            + [0xAB, 0xCD] + [0x7B, 0x7D]
        #expect(JournalSegment.encode([row]) == expected)
        #expect(try JournalSegment.decode(expected, instance: 7, tenant: "app") == [row])
    }

    @Test func rowsComeBackInOrderWithTheirAnswers() throws {
        let rows = (1...50).map { n in
            Self.row(Int64(n * 3), token: (0..<32).map { UInt8(truncatingIfNeeded: n + $0) },
                     payload: String(repeating: "x", count: n * 7))
        }
        let bytes = JournalSegment.encode(rows)
        var answered = rows
        answered[4].answer = 65_544
        #expect(try JournalSegment.decode(bytes, instance: 7, tenant: "app", answers: [15: 65_544]) == answered)
        #expect(try JournalSegment.decode(JournalSegment.encode([]), instance: 7, tenant: "app").isEmpty)
    }

    @Test func everyCutAndAnUnknownVersionAreCorrupt() throws {
        let bytes = JournalSegment.encode([Self.row(1, token: [1, 2, 3], payload: "{\"a\":1}"), Self.row(2, token: [4], payload: "{}")])
        let boundary = 1 + 27 + 3 + 7  // where the first row ends: a whole row decodes
        for length in 0..<bytes.count where length != 1 && length != boundary {
            #expect(throws: StoreError.self, "cut at \(length)") {
                try JournalSegment.decode(Array(bytes.prefix(length)), instance: 7, tenant: "app")
            }
        }
        #expect(try JournalSegment.decode(Array(bytes.prefix(boundary)), instance: 7, tenant: "app").count == 1)
        var other = bytes
        other[0] = 2
        #expect(throws: StoreError.self) { try JournalSegment.decode(other, instance: 7, tenant: "app") }
    }

    @Test func aCommitsAnswersAreOneValueAndTheLaterWins() throws {
        let bytes = JournalSegment.encodeAnswers([(seq: 2, answer: 65_544), (seq: 0x0102, answer: 3)])
        #expect(bytes == [0x01, 2, 0, 0, 0, 0, 0, 0, 0, 0x08, 0x00, 0x01, 0, 0, 0, 0, 0]
            + [0x02, 0x01, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0])
        var answers: [Int64: Int64] = [:]
        try JournalSegment.decodeAnswers(bytes, into: &answers)
        try JournalSegment.decodeAnswers(JournalSegment.encodeAnswers([(seq: 2, answer: 4)]), into: &answers)
        #expect(answers == [2: 4, 0x0102: 3])
        for length in 0..<bytes.count where length != 1 && length != 17 {
            #expect(throws: StoreError.self, "cut at \(length)") {
                try JournalSegment.decodeAnswers(Array(bytes.prefix(length)), into: &answers)
            }
        }
    }
}
