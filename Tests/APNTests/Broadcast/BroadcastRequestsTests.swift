@testable import APN
import APNHTTP2
import Foundation
import Testing
import APNTestTraits

/// Broadcast and channel management requests as header lists (literal vectors: Apple's
/// "Sending channel management requests" and "Sending broadcast push notification
/// requests" pages), and what their answers carry read back.
@Suite(.threadPerTest) struct BroadcastRequestsTests {
    static let requestID = UUID(uuidString: "2288CF3F-70D8-46A6-97D7-DD5D00867127")!
    static let channel = "dHN0LXNyY2gtY2hubA=="

    static func fields(_ template: ProviderRequest.Template) -> [String] {
        template.exchangeRequest.headers.map { "\($0.name): \($0.value)" }
    }

    @Test func channelManagementRequests() throws {
        let create = try BroadcastRequests.create(
            .mostRecentMessageStored, bundleID: "com.example.MyApp", requestID: Self.requestID, authority: "h")
        #expect(
            Self.fields(create) == [
                ":method: POST", ":scheme: https", ":path: /1/apps/com.example.MyApp/channels", ":authority: h",
                "apns-request-id: 2288cf3f-70d8-46a6-97d7-dd5d00867127",
            ])
        #expect(String(decoding: create.exchangeRequest.body, as: UTF8.self) == #"{"message-storage-policy":1,"push-type":"LiveActivity"}"#)
        #expect(!create.retriesServerErrors && create.isExchange)

        let read = try BroadcastRequests.channel(
            "GET", id: Self.channel, bundleID: "com.example.MyApp", requestID: Self.requestID, authority: "h")
        #expect(
            Self.fields(read) == [
                ":method: GET", ":scheme: https", ":path: /1/apps/com.example.MyApp/channels", ":authority: h",
                "apns-request-id: 2288cf3f-70d8-46a6-97d7-dd5d00867127", "apns-channel-id: dHN0LXNyY2gtY2hubA==",
            ])
        #expect(read.exchangeRequest.body.isEmpty && read.retriesServerErrors)

        let list = try BroadcastRequests.list(bundleID: "com.example.MyApp", requestID: Self.requestID, authority: "h")
        #expect(
            Self.fields(list) == [
                ":method: GET", ":scheme: https", ":path: /1/apps/com.example.MyApp/all-channels", ":authority: h",
                "apns-request-id: 2288cf3f-70d8-46a6-97d7-dd5d00867127",
            ])
    }

    @Test func aBroadcastRequest() throws {
        let note = PushNotification()
        note.event = "update"
        note.timestamp = 1_685_952_000
        note.contentState = ["score": "1-0"]
        note.priority = 10
        note.expiry = 0
        note.topic = "ignored.topic"
        note.collapseID = "ignored"
        note.apnsID = Self.requestID
        let template = try BroadcastRequests.broadcast(
            note, to: BroadcastChannel(id: Self.channel, storagePolicy: .noMessageStored), bundleID: "com.example.MyApp",
            authority: "api.push.apple.com")
        #expect(
            Self.fields(template) == [
                ":method: POST", ":scheme: https", ":path: /4/broadcasts/apps/com.example.MyApp",
                ":authority: api.push.apple.com", "apns-request-id: 2288cf3f-70d8-46a6-97d7-dd5d00867127",
                "apns-channel-id: dHN0LXNyY2gtY2hubA==", "apns-push-type: liveactivity", "apns-priority: 10",
                "apns-expiration: 0",
            ])
        #expect(
            String(decoding: template.exchangeRequest.body, as: UTF8.self)
                == #"{"aps":{"timestamp":1685952000,"event":"update","content-state":{"score":"1-0"}}}"#)
    }

    @Test func bundleIDs() throws {
        #expect(try BroadcastRequests.bundleID(nil, topic: "com.example.app.push-type.liveactivity") == "com.example.app")
        #expect(try BroadcastRequests.bundleID("com.example.other", topic: "com.example.app") == "com.example.other")
        for (given, topic) in [(nil, nil), ("a/b", nil), ("", nil), ("com.x.push-type.liveactivity", nil), (nil, "a b")] as [(String?, String?)] {
            #expect(throws: ProviderError.self) { try BroadcastRequests.bundleID(given, topic: topic) }
        }
    }

    @Test func channelIDs() {
        for id in ["dHN0LXNyY2gtY2hubA==", "AAAA", "AAA=", "ab+/"] { #expect(BroadcastChannel.isWellFormed(id), "\(id)") }
        for id in ["", "AAA", "A===", "AA=A", "AB C", "ab-_", "AAAA\n"] { #expect(!BroadcastChannel.isWellFormed(id), "\(id)") }
    }

    @Test func answersCarryTheExchangeFields() throws {
        let created = try ProviderAnswer(
            headers: [
                HTTP2Header(":status", "201"), HTTP2Header("apns-request-id", "2288cf3f-70d8-46a6-97d7-dd5d00867127"),
                HTTP2Header("apns-channel-id", Self.channel),
            ], body: [], exchange: true)
        #expect(created.disposition == .delivered)
        #expect(created.exchange == ProviderExchangeAnswer(requestID: Self.requestID, channelID: Self.channel, body: []))
        let read = try ProviderAnswer(
            headers: [HTTP2Header(":status", "200")], body: Array(#"{"message-storage-policy":0}"#.utf8), exchange: true)
        #expect(read.exchange?.body == Array(#"{"message-storage-policy":0}"#.utf8))
        #expect(try ProviderAnswer(headers: [HTTP2Header(":status", "204")], body: []).disposition == .delivered)
        #expect(try ProviderAnswer(headers: [HTTP2Header(":status", "200")], body: [], exchange: true).exchange == nil)
        let device = try ProviderAnswer(
            headers: [HTTP2Header(":status", "200"), HTTP2Header("apns-request-id", "2288cf3f-70d8-46a6-97d7-dd5d00867127")],
            body: Array("{}".utf8))
        #expect(device.exchange == nil, "a device's answer keeps neither the fields nor the body")
        let refused = try ProviderAnswer(
            headers: [HTTP2Header(":status", "400"), HTTP2Header("apns-request-id", "2288cf3f-70d8-46a6-97d7-dd5d00867127")],
            body: Array(#"{"reason":"MissingChannelId"}"#.utf8), exchange: true)
        #expect(refused.reason == .missingChannelID && refused.exchange?.requestID == Self.requestID)
        #expect(refused.exchange?.body == [], "a refusal's body is its reason, not kept")
    }

    @Test func answerBodies() throws {
        #expect(try BroadcastRequests.storagePolicy(fromReadBody: Array(#"{"message-storage-policy":1,"push-type":"LiveActivity"}"#.utf8)) == .mostRecentMessageStored)
        #expect(try BroadcastRequests.channelIDs(fromListBody: Array(#"{"channels":["AAAA","BBBB"]}"#.utf8)) == ["AAAA", "BBBB"])
        #expect(try BroadcastRequests.channelIDs(fromListBody: []) == [])
        for body in [#"{"message-storage-policy":2}"#, #"{"message-storage-policy":"1"}"#, "[]", "", "{"] {
            let error = #expect(throws: ProviderError.self) { try BroadcastRequests.storagePolicy(fromReadBody: Array(body.utf8)) }
            #expect(error?.code == .protocolError)
        }
        for body in [#"{"channels":[1]}"#, #"{"channel":[]}"#, "[]", "{"] {
            let error = #expect(throws: ProviderError.self) { try BroadcastRequests.channelIDs(fromListBody: Array(body.utf8)) }
            #expect(error?.code == .protocolError)
        }
    }
}
