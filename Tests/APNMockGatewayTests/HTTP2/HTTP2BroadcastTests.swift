import APNHTTP2
import APNTLS
import APNWire
import Foundation
import APNMockGateway
import APNTestSupport
import APNTestTraits
import Testing

/// Channel management and broadcast push served by a running ``HTTP2MockGateway``, over
/// HTTP/2: Apple's answers with their fields and bodies, the channels kept, the broadcasts
/// recorded, and the faults that apply.
@Suite(.threadPerTest) struct HTTP2BroadcastTests {
    static let app = HTTP2Harness.topic
    static let seed: UInt64 = 42
    static let requestID = "2288cf3f-70d8-46a6-97d7-dd5d00867127"
    static let payload = Array(#"{"aps":{"event":"update","timestamp":1685952000,"content-state":{"score":"1-0"}}}"#.utf8)

    /// A harness whose channel ids start from ``seed``.
    static func harness(
        faults: HTTP2MockGateway.Faults = HTTP2MockGateway.Faults(),
        configure: (inout HTTP2MockGateway.Configuration) -> Void = { _ in }
    ) throws -> HTTP2Harness {
        try HTTP2Harness(faults: faults) { configuration in
            configuration.channelIDSeed = seed
            configure(&configuration)
        }
    }

    /// The fields of a channel management request.
    static func management(
        _ method: String, _ suffix: String = "/channels", bundleID: String = app, channelID: String? = nil,
        requestID: String? = nil, authorization: String? = nil
    ) -> [HTTP2Header] {
        var fields = [
            HTTP2Header(":method", method), HTTP2Header(":scheme", "https"),
            HTTP2Header(":path", "/1/apps/" + bundleID + suffix), HTTP2Header(":authority", "localhost"),
        ]
        let optional: [(String, String?)] = [
            ("authorization", authorization), ("apns-channel-id", channelID), ("apns-request-id", requestID),
        ]
        for case (let name, let value?) in optional { fields.append(HTTP2Header(name, value)) }
        return fields
    }

    /// The fields of a broadcast to `channelID`.
    static func broadcast(
        _ channelID: String, expiration: String = "0", priority: String = "10", requestID: String? = nil,
        authorization: String? = nil
    ) -> [HTTP2Header] {
        var fields = [
            HTTP2Header(":method", "POST"), HTTP2Header(":scheme", "https"),
            HTTP2Header(":path", "/4/broadcasts/apps/" + app), HTTP2Header(":authority", "localhost"),
            HTTP2Header("apns-channel-id", channelID), HTTP2Header("apns-push-type", "LiveActivity"),
            HTTP2Header("apns-priority", priority), HTTP2Header("apns-expiration", expiration),
        ]
        if let requestID { fields.append(HTTP2Header("apns-request-id", requestID)) }
        if let authorization { fields.append(HTTP2Header("authorization", authorization)) }
        return fields
    }

    static func createBody(policy: Int) -> [UInt8] {
        Array(#"{"message-storage-policy": \#(policy), "push-type": "LiveActivity"}"#.utf8)
    }

    static func id(_ serial: UInt64) -> String {
        // The ids of a gateway seeded with `seed`: the seed, then the count, base64.
        let bytes = (0..<8).map { UInt8(truncatingIfNeeded: seed >> (56 - 8 * $0)) }
            + (0..<8).map { UInt8(truncatingIfNeeded: serial >> (56 - 8 * $0)) }
        return Data(bytes).base64EncodedString()
    }

    /// `response`'s `apns-request-id` is canonical (and `expected` when given).
    static func expectRequestID(_ response: HTTP2TestClient.Response, _ expected: String? = nil) {
        let requestID = response.headers["apns-request-id"]
        #expect(requestID.map(UUIDText.isCanonical) == true)
        if let expected { #expect(requestID == expected) }
    }

    @Test func createsReadsListsAndDeletesChannels() throws {
        let harness = try Self.harness()
        let client = try harness.certificateClient()
        let created = try #require(
            try client.exchange(headers: Self.management("POST", requestID: Self.requestID), body: Self.createBody(policy: 1)))
        #expect(created.status == 201 && created.body.isEmpty)
        #expect(created.headers["apns-channel-id"] == Self.id(1))
        Self.expectRequestID(created, Self.requestID)
        let second = try #require(try client.exchange(headers: Self.management("POST"), body: Self.createBody(policy: 0)))
        #expect(second.status == 201 && second.headers["apns-channel-id"] == Self.id(2))
        Self.expectRequestID(second)

        let read = try #require(try client.exchange(headers: Self.management("GET", channelID: Self.id(1)), body: []))
        #expect(read.status == 200 && read.headers["content-type"] == "application/json")
        #expect(String(decoding: read.body, as: UTF8.self) == #"{"message-storage-policy":1,"push-type":"LiveActivity"}"#)
        Self.expectRequestID(read)

        let list = try #require(try client.exchange(headers: Self.management("GET", "/all-channels"), body: []))
        #expect(list.status == 200)
        #expect(String(decoding: list.body, as: UTF8.self) == #"{"channels":["\#(Self.id(1))","\#(Self.id(2))"]}"#)

        let deleted = try #require(try client.exchange(headers: Self.management("DELETE", channelID: Self.id(1)), body: []))
        #expect(deleted.status == 204 && deleted.body.isEmpty)
        Self.expectRequestID(deleted)
        let gone = try #require(try client.exchange(headers: Self.management("GET", channelID: Self.id(1)), body: []))
        #expect(gone.status == 400 && gone.reason == "ChannelNotRegistered")
        Self.expectRequestID(gone)
        #expect(harness.gateway.channels(bundleID: Self.app) == [
            HTTP2MockGateway.Channel(id: Self.id(2), messageStoragePolicy: 0, pushType: "LiveActivity")
        ])
        let summary = harness.gateway.summary
        #expect(summary.statuses == [201: 2, 200: 2, 204: 1, 400: 1] && summary.reasons == [.channelNotRegistered: 1])
        #expect(summary.accepted == 0 && summary.broadcasts == 0)
    }

    @Test func broadcastsToAChannelAndRecordsIt() throws {
        let harness = try Self.harness()
        let client = try harness.certificateClient()
        _ = try client.exchange(headers: Self.management("POST"), body: Self.createBody(policy: 1))
        let sent = try #require(
            try client.exchange(
                headers: Self.broadcast(Self.id(1), expiration: "1700000000", priority: "5", requestID: Self.requestID),
                body: Self.payload))
        #expect(sent.status == 200 && sent.body.isEmpty)
        Self.expectRequestID(sent, Self.requestID)
        let uniqueID = try #require(sent.headers["apns-unique-id"])
        #expect(UUIDText.isCanonical(uniqueID))
        #expect(sent.headers["apns-id"] == nil)
        #expect(harness.gateway.waitForBroadcasts(count: 1, timeout: .seconds(5)))
        #expect(harness.gateway.broadcasts == [
            HTTP2MockGateway.BroadcastRecord(
                connection: 1, sequence: 1, bundleID: Self.app, channelID: Self.id(1), priority: 5, expiration: 1_700_000_000,
                requestID: Self.requestID, uniqueID: uniqueID, payload: Self.payload, authentication: .certificate)
        ])
        #expect(harness.gateway.recordCount == 0, "device records apart")
        #expect(harness.gateway.summary.broadcasts == 1)
    }

    @Test func refusesWhatDependsOnTheChannels() throws {
        let harness = try Self.harness { $0.channelLimit = 1 }
        let client = try harness.certificateClient()
        _ = try client.exchange(headers: Self.management("POST"), body: Self.createBody(policy: 0))
        let cases: [(headers: [HTTP2Header], body: [UInt8], reason: ProviderReason)] = [
            (Self.management("POST"), Self.createBody(policy: 1), .cannotCreateChannelConfig),
            (Self.broadcast(Self.id(1), expiration: "1700000000"), Self.payload, .badExpirationDate),
            (Self.broadcast(Self.id(9)), Self.payload, .channelNotRegistered),
            (Self.management("DELETE", channelID: Self.id(9)), [], .channelNotRegistered),
            (Self.broadcast(Self.id(1)).filter { $0.name != "apns-push-type" }, Self.payload, .missingPushType),
        ]
        for (headers, body, reason) in cases {
            let response = try #require(try client.exchange(headers: headers, body: body))
            #expect(response.status == 400 && response.reason == reason.rawValue, "\(reason)")
            #expect(response.headers["content-type"] == "application/json")
            Self.expectRequestID(response)
        }
        #expect(harness.gateway.broadcastCount == 0)
    }

    @Test func aProviderTokenWorksAndItsTeamsTopicsAreChecked() throws {
        let harness = try Self.harness { $0.teamTopics = [HTTP2Harness.teamID: [Self.app]] }
        let client = try harness.tokenClient()
        let bearer = try harness.bearer()
        let created = try #require(
            try client.exchange(headers: Self.management("POST", authorization: bearer), body: Self.createBody(policy: 0)))
        #expect(created.status == 201)
        let sent = try #require(try client.exchange(headers: Self.broadcast(Self.id(1), authorization: bearer), body: Self.payload))
        #expect(sent.status == 200)
        #expect(harness.gateway.broadcasts.first?.authentication == .token(keyID: HTTP2Harness.keyID, teamID: HTTP2Harness.teamID))
        let other = try #require(
            try client.exchange(headers: Self.management("GET", "/all-channels", bundleID: "com.example.other", authorization: bearer), body: []))
        #expect(other.status == 403 && other.reason == "TopicMismatch")
        let anonymous = try #require(try harness.tokenClient().exchange(headers: Self.management("GET", "/all-channels"), body: []))
        #expect(anonymous.status == 403 && anonymous.reason == "MissingProviderToken")
    }

    @Test func theFaultsApply() throws {
        var faults = HTTP2MockGateway.Faults()
        faults.broadcastDisabled = true
        let harness = try Self.harness(faults: faults)
        let client = try harness.certificateClient()
        let disabled = try #require(try client.exchange(headers: Self.management("POST"), body: Self.createBody(policy: 0)))
        #expect(disabled.status == 400 && disabled.reason == "FeatureNotEnabled")
        // Validation comes first: a malformed request meets its own reason.
        let malformed = try #require(try client.exchange(headers: Self.management("GET"), body: []))
        #expect(malformed.reason == "MissingChannelId")

        harness.gateway.updateFaults {
            $0.broadcastDisabled = false
            $0.failNextRequests(1, reason: .serviceUnavailable)
        }
        let failed = try #require(try client.exchange(headers: Self.management("POST"), body: Self.createBody(policy: 0)))
        #expect(failed.status == 503 && failed.reason == "ServiceUnavailable")
        #expect(try client.exchange(headers: Self.management("POST"), body: Self.createBody(policy: 0))?.status == 201)
        // A device request on the same connection is served as before.
        #expect(try client.exchange(headers: apnsRequest(), body: h2Payload(1))?.status == 200)
        #expect(harness.gateway.recordCount == 1)
    }

    @Test func aDelayHoldsTheAnswerAndAGoawayCoversBroadcastsToo() throws {
        var faults = HTTP2MockGateway.Faults()
        faults.goawayAfterRequests = 2
        faults.responseDelay = .milliseconds(50)
        let harness = try Self.harness(faults: faults)
        let client = try harness.certificateClient()
        let start = ContinuousClock.now
        #expect(try client.exchange(headers: Self.management("POST"), body: Self.createBody(policy: 0))?.status == 201)
        #expect(ContinuousClock.now - start >= .milliseconds(50))
        #expect(try client.exchange(headers: Self.broadcast(Self.id(1)), body: Self.payload)?.status == 200)
        #expect(try client.waitForEnd() != nil)
        #expect(client.goaway?.lastStreamID == 3)
    }

    /// docs/MOCKS.md's snippet, verbatim.
    @Test func theSnippetOfMocksMd() throws {
        /// Creates a channel of `com.example.app` and broadcasts to it, with a certificate from `authority`.
        func createAChannelAndBroadcast(port: UInt16, authority: CertificateAuthority) throws {
            let client = try HTTP2TestClient.connect(
                port: port,
                context: TLSClientContext(
                    trustedCertificates: [authority.certificate],
                    credentials: try authority.issueClientCertificate(topic: Self.app).credentials(),
                    applicationProtocols: ["h2"]))
            let created = try #require(try client.exchange(headers: Self.management("POST"), body: Self.createBody(policy: 0)))
            let channel = try #require(created.headers["apns-channel-id"])
            #expect(try client.exchange(headers: Self.broadcast(channel), body: Self.payload)?.status == 200)
        }

        var configuration = HTTP2MockGateway.Configuration()
        configuration.channelIDSeed = 42                      // channel ids known in advance
        let gateway = try HTTP2MockGateway(configuration: configuration)
        try gateway.start()
        defer { gateway.stop() }
        try createAChannelAndBroadcast(port: gateway.port, authority: gateway.certificateAuthority)  // your client
        #expect(gateway.waitForBroadcasts(count: 1, timeout: .seconds(5)))
        let broadcast = gateway.broadcasts[0]  // bundleID, channelID, priority, expiration, requestID, uniqueID, payload
        #expect(broadcast.channelID == gateway.channels(bundleID: "com.example.app")[0].id)
    }
}
