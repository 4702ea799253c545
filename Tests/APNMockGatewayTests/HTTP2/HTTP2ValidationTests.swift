import APN
import APNHTTP2
import APNMockGateway
import APNWire
import APNTestSupport
import APNTestTraits
import Testing

/// Every validation row of Apple's provider API, answered with its status and reason.
@Suite(.threadPerTest) struct HTTP2ValidationTests {
    /// One malformed request and the answer Apple gives it.
    struct Row: Sendable, CustomTestStringConvertible {
        let name: String
        let headers: [HTTP2Header]
        let body: [UInt8]
        let status: Int
        let reason: ProviderReason

        init(_ name: String, _ headers: [HTTP2Header], body: [UInt8] = h2Payload(1), _ status: Int, _ reason: ProviderReason) {
            self.name = name
            self.headers = headers
            self.body = body
            self.status = status
            self.reason = reason
        }

        var testDescription: String { name }
    }

    static let token = deviceToken(7)

    static let rows: [Row] = [
        Row("GET", apnsRequest(method: "GET"), 405, .methodNotAllowed),
        Row("another path", apnsRequest(path: "/3/topic/" + token), 404, .badPath),
        Row("another version", apnsRequest(path: "/2/device/" + token), 404, .badPath),
        Row("a path below the token", apnsRequest(path: "/3/device/" + token + "/x"), 404, .badPath),
        Row("a query", apnsRequest(path: "/3/device/" + token + "?x=1"), 404, .badPath),
        Row("no token", apnsRequest(path: "/3/device/"), 400, .missingDeviceToken),
        Row("an odd number of digits", apnsRequest(token: String(token.dropLast())), 400, .badDeviceToken),
        Row("a letter past f", apnsRequest(token: "g" + token.dropFirst()), 400, .badDeviceToken),
        Row("202 digits (101 bytes)", apnsRequest(token: String(repeating: "ab", count: 101)), 400, .badDeviceToken),
        Row("a repeated apns-topic", apnsRequest(extra: [HTTP2Header("apns-topic", HTTP2Harness.topic)]), 400, .duplicateHeaders),
        Row("a repeated apns-priority", apnsRequest(extra: [HTTP2Header("apns-priority", "10")]), 400, .duplicateHeaders),
        Row(
            "a repeated apns-* of no meaning",
            apnsRequest(extra: [HTTP2Header("apns-extra", "1"), HTTP2Header("apns-extra", "2")]), 400,
            .duplicateHeaders),
        Row("an empty apns-topic", apnsRequest(topic: ""), 400, .badTopic),
        Row("an unknown push type", apnsRequest(pushType: "sms"), 400, .invalidPushType),
        Row("priority 7", apnsRequest(priority: "7"), 400, .badPriority),
        Row("priority high", apnsRequest(priority: "high"), 400, .badPriority),
        Row("a negative expiration", apnsRequest(expiration: "-1"), 400, .badExpirationDate),
        Row("a fractional expiration", apnsRequest(expiration: "1.5"), 400, .badExpirationDate),
        Row("an empty expiration", apnsRequest(expiration: ""), 400, .badExpirationDate),
        Row("a 65-byte collapse id", apnsRequest(collapseID: String(repeating: "c", count: 65)), 400, .badCollapseID),
        Row("an apns-id that is no UUID", apnsRequest(apnsID: "not-a-uuid"), 400, .badMessageID),
        Row(
            "an apns-id in braces", apnsRequest(apnsID: "{123e4567-e89b-12d3-a456-426614174000}"), 400, .badMessageID),
        Row("an empty payload", apnsRequest(), body: [], 400, .payloadEmpty),
        Row("a 4,097-byte payload", apnsRequest(), body: jsonPayload(size: 4097), 413, .payloadTooLarge),
        Row("a 5,121-byte VoIP payload", apnsRequest(pushType: "voip"), body: jsonPayload(size: 5121), 413, .payloadTooLarge),
        Row("a payload that is not JSON", apnsRequest(), body: Array(#"{"aps":"#.utf8), 400, .payloadEmpty),
        Row("a JSON array", apnsRequest(), body: Array("[1,2]".utf8), 400, .payloadEmpty),
    ]

    @Test(arguments: rows)
    func refuses(_ row: Row) throws {
        let harness = try HTTP2Harness()
        let client = try harness.certificateClient()
        let response = try #require(try client.exchange(headers: row.headers, body: row.body))
        #expect(response.status == row.status)
        #expect(response.reason == row.reason.rawValue)
        #expect(response.headers["content-type"] == "application/json")
        let apnsID = try #require(response.headers["apns-id"])
        #expect(apnsID == apnsID.lowercased() && UUIDText.isCanonical(apnsID))
        #expect(harness.gateway.recordCount == 0)
        let summary = harness.gateway.summary
        #expect(summary.statuses == [row.status: 1] && summary.reasons == [row.reason: 1])
    }

    @Test func acceptsAndRecordsWhatArrived() throws {
        let harness = try HTTP2Harness()
        let client = try harness.certificateClient()
        let apnsID = "123e4567-e89b-12d3-a456-426614174000"
        let collapseID = String(repeating: "c", count: 64)
        let headers = apnsRequest(
            token: Self.token.uppercased(), pushType: "background", priority: "5", expiration: "1700000000",
            collapseID: collapseID, apnsID: apnsID)
        let response = try #require(try client.exchange(headers: headers, body: h2Payload(3)))
        #expect(response.status == 200 && response.body.isEmpty)
        #expect(response.headers["apns-id"] == apnsID)
        let uniqueID = try #require(response.headers["apns-unique-id"])
        #expect(UUIDText.isCanonical(uniqueID) && uniqueID != apnsID)
        #expect(harness.gateway.records == [
            HTTP2MockGateway.Record(
                connection: 1, sequence: 1, token: Self.token, topic: HTTP2Harness.topic, pushType: .background,
                priority: 5, expiration: 1_700_000_000, collapseID: collapseID, apnsID: apnsID, payload: h2Payload(3),
                authentication: .certificate)
        ])
    }

    @Test func acceptsARequestWithNoOptionalHeaderAndMakesItsID() throws {
        let harness = try HTTP2Harness()
        let client = try harness.certificateClient()
        let headers = apnsRequest(topic: nil, pushType: nil, priority: nil, expiration: nil)
        let response = try #require(try client.exchange(headers: headers, body: h2Payload(1)))
        #expect(response.status == 200)
        let apnsID = try #require(response.headers["apns-id"])
        #expect(UUIDText.isCanonical(apnsID) && apnsID == apnsID.lowercased())
        let record = try #require(harness.gateway.records.first)
        #expect(record.topic == HTTP2Harness.topic, "the certificate's only topic")
        #expect(record.pushType == nil && record.priority == nil && record.expiration == nil && record.collapseID == nil)
        #expect(record.apnsID == apnsID)
    }

    @Test(arguments: [(4096, "alert"), (5120, "voip")])
    func acceptsAPayloadAtTheLimit(size: Int, pushType: String) throws {
        let harness = try HTTP2Harness()
        let client = try harness.certificateClient()
        let response = try client.exchange(headers: apnsRequest(pushType: pushType), body: jsonPayload(size: size))
        #expect(response?.status == 200)
        #expect(harness.gateway.records.first?.payload.count == size)
    }

    /// Issue #26 row 6: Apple's device tokens are of variable length; only 32-byte ones were
    /// accepted. Any whole number of bytes from 1 to 100 is.
    @Test(arguments: [
        "0123456789abcdef",  // 8 bytes
        "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff",  // 32
        String(repeating: "0123456789ABCDEF", count: 8),  // 64, upper case
        String(repeating: "0a", count: 100),  // 100
    ])
    func acceptsDeviceTokensOfAnyLengthFromOneTo100Bytes(token: String) throws {
        let harness = try HTTP2Harness()
        let client = try harness.certificateClient()
        #expect(try client.exchange(headers: apnsRequest(token: token), body: h2Payload(1))?.status == 200)
        #expect(harness.gateway.records.map(\.token) == [token.lowercased()])
    }

    @Test func takesOtherTokenLengthsWhenConfigured() throws {
        let harness = try HTTP2Harness { $0.deviceTokenLengths = [64, 160] }
        let client = try harness.certificateClient()
        let long = String(repeating: "ab", count: 80)
        #expect(try client.exchange(headers: apnsRequest(token: long), body: h2Payload(1))?.status == 200)
        #expect(try client.exchange(headers: apnsRequest(token: deviceToken(2)), body: h2Payload(1))?.status == 200)
        #expect(harness.gateway.records.map(\.token) == [long, deviceToken(2)])
    }

    @Test func leavesOutTheUniqueIDWhenAskedAndTakesAnyPayloadWhenNotChecking() throws {
        let harness = try HTTP2Harness {
            $0.sendsUniqueID = false
            $0.requiresJSONObjectPayload = false
        }
        let client = try harness.certificateClient()
        let response = try #require(try client.exchange(headers: apnsRequest(), body: Array("not json".utf8)))
        #expect(response.status == 200)
        #expect(response.headers["apns-unique-id"] == nil)
    }

    @Test func refusesATokenForAnotherTopic() throws {
        let harness = try HTTP2Harness {
            $0.deviceTopics = [Self.token.uppercased(): "com.example.other"]
            $0.certificateTopics = [HTTP2Harness.topic, "com.example.other"]
        }
        let client = try harness.certificateClient()
        let refused = try client.exchange(headers: apnsRequest(token: Self.token), body: h2Payload(1))
        #expect(refused?.status == 400 && refused?.reason == "DeviceTokenNotForTopic")
        let accepted = try client.exchange(
            headers: apnsRequest(token: Self.token, topic: "com.example.other"), body: h2Payload(2))
        #expect(accepted?.status == 200)
    }
}

/// A JSON object payload of exactly `size` bytes.
func jsonPayload(size: Int) -> [UInt8] {
    let frame = Array(#"{"aps":{"alert":""}}"#.utf8)
    var payload = Array(frame.prefix(17))
    payload += [UInt8](repeating: UInt8(ascii: "x"), count: size - frame.count)
    return payload + frame.suffix(3)
}
