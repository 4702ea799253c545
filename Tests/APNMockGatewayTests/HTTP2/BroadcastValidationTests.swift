import APNHTTP2
import APNWire
import APNTestSupport
import Foundation
@testable import APNMockGateway
import Testing

/// Apple's validation of broadcast and channel management requests, without a connection:
/// each row's fields and body, and the refusal (status, reason) or the operation it comes to.
@Suite struct BroadcastValidationTests {
    static let app = "com.example.app"
    static let channel = "dHN0LXNyY2gtY2hubA=="
    static let requestID = "2288cf3f-70d8-46a6-97d7-dd5d00867127"
    static let payload = Array(#"{"aps":{"event":"update","timestamp":1,"content-state":{}}}"#.utf8)

    /// The fields of a channel management request (`path` after `/1/apps/<bundle id>`).
    static func management(
        _ method: String, _ suffix: String = "/channels", bundleID: String = app, channelID: String? = nil,
        requestID: String? = nil, extra: [HTTP2Header] = []
    ) -> [HTTP2Header] {
        var fields = [
            HTTP2Header(":method", method), HTTP2Header(":scheme", "https"),
            HTTP2Header(":path", "/1/apps/" + bundleID + suffix), HTTP2Header(":authority", "localhost"),
        ]
        if let channelID { fields.append(HTTP2Header("apns-channel-id", channelID)) }
        if let requestID { fields.append(HTTP2Header("apns-request-id", requestID)) }
        return fields + extra
    }

    /// The fields of a broadcast; `nil` leaves a field out.
    static func broadcast(
        method: String = "POST", path: String = "/4/broadcasts/apps/" + app, channelID: String? = channel,
        pushType: String? = "LiveActivity", priority: String? = "10", expiration: String? = "0", apnsID: String? = nil
    ) -> [HTTP2Header] {
        var fields = [
            HTTP2Header(":method", method), HTTP2Header(":scheme", "https"), HTTP2Header(":path", path),
            HTTP2Header(":authority", "localhost"),
        ]
        let optional: [(String, String?)] = [
            ("apns-channel-id", channelID), ("apns-push-type", pushType), ("apns-priority", priority),
            ("apns-expiration", expiration), ("apns-id", apnsID),
        ]
        for case (let name, let value?) in optional { fields.append(HTTP2Header(name, value)) }
        return fields
    }

    static func body(_ json: String) -> [UInt8] { Array(json.utf8) }

    /// What a row must come to.
    enum Expected: Sendable {
        case refused(Int, ProviderReason)
        case operation(BroadcastRequest.Operation)
    }

    struct Row: Sendable, CustomTestStringConvertible {
        let name: String
        let fields: [HTTP2Header]
        let body: [UInt8]
        let expected: Expected

        init(_ name: String, _ fields: [HTTP2Header], body: [UInt8] = [], _ expected: Expected) {
            self.name = name
            self.fields = fields
            self.body = body
            self.expected = expected
        }

        var testDescription: String { name }
    }

    static let policy1 = body(#"{"message-storage-policy": 1, "push-type": "LiveActivity"}"#)

    static let rows: [Row] = [
        // Accepted, as operations.
        Row("create", management("POST"), body: policy1, .operation(.create(messageStoragePolicy: 1, pushType: "LiveActivity"))),
        Row(
            "create, policy 0, push type in lower case (node-apn's)", management("POST"),
            body: body(#"{"push-type":"liveactivity","message-storage-policy":0}"#),
            .operation(.create(messageStoragePolicy: 0, pushType: "LiveActivity"))),
        Row("read", management("GET", channelID: channel), .operation(.read(channel))),
        Row("delete", management("DELETE", channelID: channel), .operation(.delete(channel))),
        Row("list", management("GET", "/all-channels"), .operation(.list)),
        Row(
            "broadcast", broadcast(priority: "5", expiration: "1700000000"), body: payload,
            .operation(.send(BroadcastSend(channelID: channel, priority: 5, expiration: 1_700_000_000, payload: payload)))),
        Row(
            "broadcast, push type in lower case (Apple's samples)", broadcast(pushType: "liveactivity", priority: "1"),
            body: payload, .operation(.send(BroadcastSend(channelID: channel, priority: 1, expiration: 0, payload: payload)))),
        // Paths and methods.
        Row("an unknown management path", management("GET", "/channel"), .refused(404, .badPath)),
        Row("an empty bundle id", management("GET", "/all-channels", bundleID: ""), .refused(404, .badPath)),
        Row("a path below the bundle id", broadcast(path: "/4/broadcasts/apps/" + app + "/x"), body: payload, .refused(404, .badPath)),
        Row("broadcast in the singular", broadcast(path: "/4/broadcast/apps/" + app), body: payload, .refused(404, .badPath)),
        Row("a channel id in the path", management("GET", "/channels/" + channel), .refused(404, .badPath)),
        Row("PUT on channels", management("PUT"), body: policy1, .refused(405, .methodNotAllowed)),
        Row("POST on all-channels", management("POST", "/all-channels"), .refused(405, .methodNotAllowed)),
        Row("GET on broadcasts", broadcast(method: "GET"), .refused(405, .methodNotAllowed)),
        // Common checks.
        Row(
            "a repeated apns-channel-id",
            management("GET", channelID: channel, extra: [HTTP2Header("apns-channel-id", channel)]),
            .refused(400, .duplicateHeaders)),
        Row("a bundle id with a push type suffix", management("GET", "/all-channels", bundleID: app + ".push-type.liveactivity"), .refused(400, .topicDisallowed)),
        Row("another app's bundle id", management("GET", "/all-channels", bundleID: "com.example.other"), .refused(403, .topicMismatch)),
        Row("an apns-request-id that is no UUID", management("GET", "/all-channels", requestID: "x"), .refused(400, .badMessageID)),
        // Create bodies.
        Row("create without a body", management("POST"), .refused(400, .badRequestPayload)),
        Row("create with a body that is not JSON", management("POST"), body: body("{"), .refused(400, .badRequestPayload)),
        Row("create with a JSON array", management("POST"), body: body("[1]"), .refused(400, .badRequestPayload)),
        Row(
            "create with an unknown key", management("POST"),
            body: body(#"{"message-storage-policy":1,"push-type":"LiveActivity","x":1}"#), .refused(400, .badRequestParams)),
        Row("create without a push type", management("POST"), body: body(#"{"message-storage-policy":1}"#), .refused(400, .badRequestParams)),
        Row("create without a policy", management("POST"), body: body(#"{"push-type":"LiveActivity"}"#), .refused(400, .badRequestParams)),
        Row(
            "create with policy 2", management("POST"), body: body(#"{"message-storage-policy":2,"push-type":"LiveActivity"}"#),
            .refused(400, .badRequestParams)),
        Row(
            "create with the policy as a string", management("POST"),
            body: body(#"{"message-storage-policy":"1","push-type":"LiveActivity"}"#), .refused(400, .badRequestParams)),
        Row(
            "create with the policy as a boolean", management("POST"),
            body: body(#"{"message-storage-policy":true,"push-type":"LiveActivity"}"#), .refused(400, .badRequestParams)),
        Row(
            "create with another push type", management("POST"), body: body(#"{"message-storage-policy":1,"push-type":"alert"}"#),
            .refused(400, .badRequestParams)),
        // Channel ids.
        Row("read without a channel id", management("GET"), .refused(400, .missingChannelID)),
        Row("delete without a channel id", management("DELETE"), .refused(400, .missingChannelID)),
        Row("read with a channel id that is not base64", management("GET", channelID: "not base64!"), .refused(400, .badChannelID)),
        Row("read with unpadded base64", management("GET", channelID: "dHN0"+"LXNyY2gtY2hubA"), .refused(400, .badChannelID)),
        Row("a 260-character channel id", management("GET", channelID: String(repeating: "AAAA", count: 65)), .refused(400, .badChannelID)),
        // Broadcasts.
        Row("a broadcast without a channel id", broadcast(channelID: nil), body: payload, .refused(400, .missingChannelID)),
        Row("a broadcast to a channel id that is not base64", broadcast(channelID: "%%%%"), body: payload, .refused(400, .badChannelID)),
        Row("a broadcast without a push type", broadcast(pushType: nil), body: payload, .refused(400, .missingPushType)),
        Row("a broadcast of push type alert", broadcast(pushType: "alert"), body: payload, .refused(400, .invalidPushType)),
        Row("a broadcast without a priority", broadcast(priority: nil), body: payload, .refused(400, .badPriority)),
        Row("a broadcast of priority 7", broadcast(priority: "7"), body: payload, .refused(400, .badPriority)),
        Row("a broadcast without an expiration", broadcast(expiration: nil), body: payload, .refused(400, .badExpirationDate)),
        Row("a broadcast with a negative expiration", broadcast(expiration: "-1"), body: payload, .refused(400, .badExpirationDate)),
        Row("a broadcast with a bad apns-id", broadcast(apnsID: "nope"), body: payload, .refused(400, .badMessageID)),
        Row("an empty broadcast", broadcast(), .refused(400, .payloadEmpty)),
        Row("a 5,121-byte broadcast", broadcast(), body: jsonPayload(size: 5121), .refused(413, .payloadTooLarge)),
        Row("a broadcast that is not JSON", broadcast(), body: body("{"), .refused(400, .badRequestPayload)),
    ]

    /// A validator and a connection authenticated by a certificate for ``app``.
    struct Connection {
        let validator = RequestValidator(rules: RequestValidator.Rules(HTTP2MockGateway.Configuration()))
        var authenticator = ConnectionAuthenticator(
            rules: ConnectionAuthenticator.Rules(HTTP2MockGateway.Configuration()),
            certificate: ConnectionAuthenticator.Certificate(topics: [app], isForOtherEnvironment: false))
        var ids = UUIDSequence()
        var strings = RequestFieldStrings()

        mutating func check(_ fields: [HTTP2Header], body: [UInt8] = []) -> RequestVerdict {
            validator.check(
                headers: HTTP2HeaderList(fields), body: body, authenticator: &authenticator, ids: &ids,
                strings: &strings, now: 1_700_000_000)
        }
    }

    @Test(arguments: rows)
    func validates(_ row: Row) throws {
        var connection = Connection()
        let verdict = connection.check(row.fields, body: row.body)
        switch (verdict, row.expected) {
        case (.broadcastRefused(let response), .refused(let status, let reason)):
            #expect(response.status == status && response.reason == reason)
            #expect(response.headers["content-type"] == "application/json")
            #expect(response.body == Array(#"{"reason":"\#(reason.rawValue)"}"#.utf8))
            let requestID = try #require(response.headers["apns-request-id"])
            #expect(UUIDText.isCanonical(requestID))
        case (.broadcast(let request), .operation(let operation)):
            #expect(request.operation == operation)
            #expect(request.bundleID == Self.app && request.authentication == .certificate)
            #expect(UUIDText.isCanonical(request.requestID))
        default:
            Issue.record("\(row.name): got \(verdict)")
        }
    }

    @Test func anApnsRequestIDIsEchoedOnAcceptanceAndRefusal() {
        var connection = Connection()
        let accepted = connection.check(Self.management("GET", "/all-channels", requestID: Self.requestID))
        guard case .broadcast(let request) = accepted else {
            Issue.record("got \(accepted)")
            return
        }
        #expect(request.requestID == Self.requestID)
        let refused = connection.check(Self.management("GET", requestID: Self.requestID))
        guard case .broadcastRefused(let response) = refused else {
            Issue.record("got \(refused)")
            return
        }
        #expect(response.reason == .missingChannelID && response.headers["apns-request-id"] == Self.requestID)
    }

    @Test func devicePathsStillGoTheDeviceWay() {
        func isBroadcast(_ path: String) -> Bool {
            var path = path
            return path.withUTF8(RequestValidator.isBroadcastPath)
        }
        #expect(!isBroadcast("/3/device/aa"))
        #expect(isBroadcast("/1/apps/x/channels"))
        #expect(isBroadcast("/4/broadcasts/apps/x"))
        #expect(!isBroadcast("/"))
        #expect(!isBroadcast(""))
    }
}
