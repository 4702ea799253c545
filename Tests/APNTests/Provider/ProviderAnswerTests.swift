@testable import APN
import APNHTTP2
import Foundation
import Testing
import APNTestSupport
import APNTestTraits

@Suite("HTTP/2 provider API: Apple's answers", .threadPerTest)
struct ProviderAnswerTests {
    @Test("200 with apns-id and apns-unique-id")
    func success() throws {
        let answer = try ProviderAnswer(
            headers: [HTTP2Header(":status", "200"), HTTP2Header("apns-id", "eabeae54-14a8-11e5-b60b-1697f925ec7b"), HTTP2Header("apns-unique-id", "u-1")],
            body: [])
        #expect(answer == ProviderAnswer(status: 200, apnsID: UUID(uuidString: "eabeae54-14a8-11e5-b60b-1697f925ec7b"), uniqueID: "u-1"))
        #expect(answer.disposition == .delivered)
    }

    @Test("an apns-unique-id comes back as sent, kept inline at 36 bytes and as a string otherwise")
    func uniqueIDs() throws {
        let uuid = "EABEAE54-14a8-11e5-B60B-1697f925ec7b"
        for text in [uuid, "u-1", "", String(repeating: "x", count: 35), String(repeating: "é", count: 18), uuid + "0"] {
            let answer = try ProviderAnswer(headers: [HTTP2Header(":status", "200"), HTTP2Header("apns-unique-id", text)], body: [])
            #expect(answer.uniqueID.string == text)
            #expect(answer.uniqueID == FieldText(text))
            let template = try ProviderRequest.Template(
                forwarding: .init(pushType: .alert, priority: 10, expiry: 0, topic: "t"), authority: "h", requiresTopic: true)
            let request = template.request(to: try Device(String(repeating: "ab", count: 32)), payload: [])
            #expect(ProviderResponse(request, error: nil, answer: answer, attempts: 1).uniqueID == text)
        }
        // 36 bytes that are not UTF-8 are repaired, as any received value is.
        let bytes = [UInt8](repeating: 0xFF, count: 36)
        let text = bytes.withUnsafeBufferPointer { FieldText($0) }
        #expect(text.string == String(repeating: "\u{FFFD}", count: 36))
        #expect(FieldText("a") != FieldText(uuid) && FieldText(uuid) == FieldText(uuid))
        #expect(FieldText.absent.string == nil && FieldText.absent.uuid == nil && FieldText.absent != FieldText(""))
    }

    @Test("an apns-id is read as Foundation reads it, in either case; anything else is dropped")
    func apnsIDs() throws {
        for _ in 0..<200 {
            let uuid = UUID()
            for text in [uuid.uuidString, uuid.uuidString.lowercased()] {
                let answer = try ProviderAnswer(headers: [HTTP2Header(":status", "200"), HTTP2Header("apns-id", text)], body: [])
                #expect(answer.apnsID == uuid)
            }
            #expect(uuid.apnsText == uuid.uuidString.lowercased())
            #expect(UUID(apnsText: uuid.apnsText) == uuid)
            // Kept as text and read as a UUID when asked for: a response made with one
            // gives it back, and an answer made with one equals one read from its text.
            let device = try Device(String(repeating: "ab", count: 32))
            #expect(ProviderResponse(device: device, error: nil, status: 200, apnsID: uuid, uniqueID: nil, attempts: 1).apnsID == uuid)
            #expect(ProviderAnswer(status: 200, apnsID: uuid) == (try ProviderAnswer(
                headers: [HTTP2Header(":status", "200"), HTTP2Header("apns-id", uuid.uuidString)], body: [])))
        }
        for text in ["", "not-a-uuid", "eabeae5414a811e5b60b1697f925ec7b", "eabeae54-14a8-11e5-b60b-1697f925ec7", "{eabeae54-14a8-11e5-b60b-1697f925ec7b}"] {
            let answer = try ProviderAnswer(headers: [HTTP2Header(":status", "200"), HTTP2Header("apns-id", text)], body: [])
            #expect(answer.apnsID == nil, "\(text)")
            let device = try Device(String(repeating: "ab", count: 32))
            let template = try ProviderRequest.Template(
                forwarding: .init(pushType: .alert, priority: 10, expiry: 0, topic: "t"), authority: "h", requiresTopic: true)
            #expect(ProviderResponse(template.request(to: device, payload: []), error: nil, answer: answer, attempts: 1).apnsID == nil)
        }
    }

    @Test("410 Unregistered with Apple's millisecond timestamp")
    func unregistered() throws {
        let answer = try ProviderAnswer(
            headers: [HTTP2Header(":status", "410")], body: Array(#"{"reason":"Unregistered","timestamp":1700000000123}"#.utf8))
        #expect(answer.reason == .unregistered)
        #expect(answer.timestamp == Date(timeIntervalSince1970: 1_700_000_000.123))
        #expect(answer.disposition == .fail)
    }

    @Test("every documented reason decodes typed, with Apple's status")
    func everyReason() throws {
        #expect(ProviderReason.documented.count == 32)
        for reason in ProviderReason.documented {
            let status = try #require(reason.status)
            let answer = try ProviderAnswer(
                headers: [HTTP2Header(":status", String(status))], body: Array(#"{"reason":"\#(reason.rawValue)"}"#.utf8))
            #expect(answer.reason == reason)
        }
    }

    @Test("every broadcast and channel reason decodes typed, with Apple's status (400, TopicMismatch 403)")
    func everyBroadcastReason() throws {
        #expect(ProviderReason.broadcastDocumented.count == 9)
        #expect(Set(ProviderReason.broadcastDocumented).isDisjoint(with: ProviderReason.documented))
        for reason in ProviderReason.broadcastDocumented {
            let status = try #require(reason.status)
            #expect(status == (reason == .topicMismatch ? 403 : 400), "\(reason)")
            let answer = try ProviderAnswer(
                headers: [HTTP2Header(":status", String(status))], body: Array(#"{"reason":"\#(reason.rawValue)"}"#.utf8))
            #expect(answer.reason == reason)
        }
    }

    @Test("what each status asks: retry 429/500/503, renew on ExpiredProviderToken, never retry other 4xx")
    func dispositions() {
        #expect(ProviderAnswer(status: 429, reason: .tooManyRequests).disposition == .retryAfterBackoff)
        #expect(ProviderAnswer(status: 429, reason: .tooManyProviderTokenUpdates).disposition == .fail)
        #expect(ProviderAnswer(status: 500, reason: .internalServerError).disposition == .retryAfterBackoff)
        #expect(ProviderAnswer(status: 503, reason: .shutdown).disposition == .retryAfterBackoff)
        #expect(ProviderAnswer(status: 403, reason: .expiredProviderToken).disposition == .renewTokenAndRetry)
        #expect(ProviderAnswer(status: 403, reason: .invalidProviderToken).disposition == .fail)
        #expect(ProviderAnswer(status: 400, reason: .badDeviceToken).disposition == .fail)
        #expect(ProviderAnswer(status: 413, reason: .payloadTooLarge).disposition == .fail)
    }

    @Test("an unknown reason is kept as it came; a body that is not JSON leaves the status to decide")
    func unknownAndGarbage() throws {
        let unknown = try ProviderAnswer(headers: [HTTP2Header(":status", "400")], body: Array(#"{"reason":"Brand New"}"#.utf8))
        #expect(unknown.reason?.rawValue == "Brand New")
        #expect(unknown.reason?.status == nil)
        let garbage = try ProviderAnswer(headers: [HTTP2Header(":status", "503")], body: Array("<html>busy</html>".utf8))
        #expect(garbage.reason == nil)
        #expect(garbage.disposition == .retryAfterBackoff)
    }

    @Test("a response without a usable :status is a protocol error")
    func badStatus() {
        for headers: [HTTP2Header] in [[], [HTTP2Header(":status", "abc")], [HTTP2Header(":status", "99")], [HTTP2Header(":status", "600")]] {
            let error = #expect(throws: ProviderError.self) { try ProviderAnswer(headers: HTTP2HeaderList(headers), body: []) }
            #expect(error?.code == .protocolError)
        }
    }
}
