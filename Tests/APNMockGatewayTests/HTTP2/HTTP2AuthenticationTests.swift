import APN
import APNHTTP2
import APNTLS
import APNMockGateway
import APNTestSupport
import APNTestTraits
import Testing

/// Certificate and provider-token authentication, and the TLS and ALPN refusals before them.
@Suite(.threadPerTest) struct HTTP2AuthenticationTests {
    // MARK: Certificates

    @Test func aCertificateWithSeveralTopicsNeedsATopicAndOneOfItsOwn() throws {
        let harness = try HTTP2Harness { $0.certificateTopics = ["com.example.app", "com.example.app.voip"] }
        let client = try harness.certificateClient()
        let missing = try client.exchange(headers: apnsRequest(topic: nil), body: h2Payload(1))
        #expect(missing?.status == 400 && missing?.reason == "MissingTopic")
        let other = try client.exchange(headers: apnsRequest(topic: "com.example.other"), body: h2Payload(2))
        #expect(other?.status == 400 && other?.reason == "TopicDisallowed")
        let voip = try client.exchange(
            headers: apnsRequest(topic: "com.example.app.voip", pushType: "voip"), body: h2Payload(3))
        #expect(voip?.status == 200)
        #expect(harness.gateway.records.map(\.topic) == ["com.example.app.voip"])
    }

    @Test func aCertificateTopicComesFromItsUID() throws {
        let harness = try HTTP2Harness()
        let client = try harness.certificateClient(topic: "com.example.fromuid")
        let wrong = try client.exchange(headers: apnsRequest(topic: HTTP2Harness.topic), body: h2Payload(1))
        #expect(wrong?.status == 400 && wrong?.reason == "TopicDisallowed")
        let right = try client.exchange(headers: apnsRequest(topic: nil), body: h2Payload(2))
        #expect(right?.status == 200)
        #expect(harness.gateway.records.map(\.topic) == ["com.example.fromuid"])
    }

    @Test func aCertificateFromAnotherAuthorityFailsTheHandshake() throws {
        let harness = try HTTP2Harness()
        let stranger = try CertificateAuthority(commonName: "Stranger CA")
        let context = try harness.context(authority: stranger)
        let connection = try TLSConnection.connect(host: "127.0.0.1", port: harness.gateway.port, context: context)
        // TLS 1.3: the client may finish its side first and learn of the refusal on its first read.
        if (try? connection.handshake(deadline: .now + .seconds(5))) != nil {
            let client = try HTTP2TestClient(connection)
            #expect(try client.waitForEnd() != nil)
        }
        #expect(harness.gateway.waitForSummary(timeout: .seconds(5)) { $0.refusedConnections == 1 })
        #expect(harness.gateway.summary.connections == 0)
    }

    // MARK: Provider tokens

    @Test func aGoodTokenIsAcceptedAndRecorded() throws {
        let harness = try HTTP2Harness()
        let client = try harness.tokenClient()
        let response = try client.exchange(headers: apnsRequest(authorization: try harness.bearer()), body: h2Payload(1))
        #expect(response?.status == 200)
        #expect(harness.gateway.records.first?.authentication == .token(keyID: HTTP2Harness.keyID, teamID: HTTP2Harness.teamID))
    }

    /// A token request and the refusal it earns.
    enum BadToken: String, CaseIterable, Sendable {
        case missing, notBearer, garbage, otherKey, unknownKeyID, otherTeam, expired, future
    }

    @Test(arguments: BadToken.allCases)
    func aBadTokenIsRefused(_ bad: BadToken) throws {
        let harness = try HTTP2Harness()
        let authorization: String?
        var expected = ProviderReason.invalidProviderToken
        switch bad {
        case .missing:
            authorization = nil
            expected = .missingProviderToken
        case .notBearer: authorization = "basic " + (try harness.bearer()).dropFirst("bearer ".count)
        case .garbage: authorization = "bearer not.a.token"
        case .otherKey: authorization = try harness.bearer(key: ES256SigningKey.generate())
        case .unknownKeyID: authorization = try harness.bearer(keyID: "UNKNOWN123")
        case .otherTeam: authorization = try harness.bearer(teamID: "OTHERTEAM1")
        case .expired:
            authorization = try harness.bearer(age: 3601)
            expected = .expiredProviderToken
        case .future:
            authorization = try harness.bearer(age: -61)
            expected = .expiredProviderToken
        }
        let client = try harness.tokenClient()
        let response = try client.exchange(headers: apnsRequest(authorization: authorization), body: h2Payload(1))
        #expect(response?.status == 403)
        #expect(response?.reason == expected.rawValue)
        #expect(harness.gateway.recordCount == 0)
    }

    @Test func aTokenExpiresAnHourAfterItWasIssued() throws {
        let harness = try HTTP2Harness()
        let client = try harness.tokenClient()
        let authorization = try harness.bearer()
        #expect(try client.exchange(headers: apnsRequest(authorization: authorization), body: h2Payload(1))?.status == 200)
        harness.clock.advance(by: 3600)
        #expect(try client.exchange(headers: apnsRequest(authorization: authorization), body: h2Payload(2))?.status == 200)
        harness.clock.advance(by: 1)
        let expired = try client.exchange(headers: apnsRequest(authorization: authorization), body: h2Payload(3))
        #expect(expired?.status == 403 && expired?.reason == "ExpiredProviderToken")
    }

    @Test func aConnectionMaySwitchTokensOnlyEveryTwentyMinutes() throws {
        let harness = try HTTP2Harness()
        let client = try harness.tokenClient()
        let first = try harness.bearer()
        #expect(try client.exchange(headers: apnsRequest(authorization: first), body: h2Payload(1))?.status == 200)
        harness.clock.advance(by: 20 * 60 - 1)
        let early = try harness.bearer()
        let refused = try client.exchange(headers: apnsRequest(authorization: early), body: h2Payload(2))
        #expect(refused?.status == 429 && refused?.reason == "TooManyProviderTokenUpdates")
        #expect(try client.exchange(headers: apnsRequest(authorization: first), body: h2Payload(3))?.status == 200,
                "the connection keeps its token")
        harness.clock.advance(by: 1)
        #expect(try client.exchange(headers: apnsRequest(authorization: early), body: h2Payload(4))?.status == 200)
        // Another connection starts afresh.
        let other = try harness.tokenClient()
        #expect(try other.exchange(headers: apnsRequest(authorization: first), body: h2Payload(5))?.status == 200)
        #expect(harness.gateway.recordCount == 4)
    }

    @Test func tokenAuthenticationNeedsATopicTheTeamMayUse() throws {
        let harness = try HTTP2Harness { $0.teamTopics = [HTTP2Harness.teamID: [HTTP2Harness.topic]] }
        let client = try harness.tokenClient()
        let authorization = try harness.bearer()
        let missing = try client.exchange(headers: apnsRequest(topic: nil, authorization: authorization), body: h2Payload(1))
        #expect(missing?.status == 400 && missing?.reason == "MissingTopic")
        let other = try client.exchange(
            headers: apnsRequest(topic: "com.example.other", authorization: authorization), body: h2Payload(2))
        #expect(other?.status == 400 && other?.reason == "TopicDisallowed")
        #expect(try client.exchange(headers: apnsRequest(authorization: authorization), body: h2Payload(3))?.status == 200)
    }

    @Test func aTokenConnectionHasOneStreamUntilAValidToken() throws {
        let harness = try HTTP2Harness()
        let client = try harness.tokenClient()
        #expect(try client.run { client.serverMaxConcurrentStreams != nil })
        #expect(client.serverMaxConcurrentStreams == 1)
        let refused = try client.exchange(headers: apnsRequest(authorization: "bearer junk"), body: h2Payload(1))
        #expect(refused?.reason == "InvalidProviderToken")
        #expect(client.serverMaxConcurrentStreams == 1, "an invalid token opens nothing")
        let authorization = try harness.bearer()
        let streams = try (2...6).map { try client.submit(headers: apnsRequest(authorization: authorization), body: h2Payload($0)) }
        #expect(try client.waitForStreams(streams))
        #expect(streams.allSatisfy { client.responses[$0]?.status == 200 })
        #expect(client.serverMaxConcurrentStreams == 1000)
        // Certificate clients have the full limit from the start.
        let certified = try harness.certificateClient()
        #expect(try certified.run { certified.serverMaxConcurrentStreams != nil })
        #expect(certified.serverMaxConcurrentStreams == 1000)
    }

    @Test func aCertificateConnectionIgnoresTokens() throws {
        let harness = try HTTP2Harness()
        let client = try harness.certificateClient()
        let response = try client.exchange(headers: apnsRequest(authorization: "bearer junk"), body: h2Payload(1))
        #expect(response?.status == 200)
        #expect(harness.gateway.records.first?.authentication == .certificate)
    }

    @Test func aGatewayThatAsksForNoCertificateServesTokensOnly() throws {
        let harness = try HTTP2Harness { $0.requestsClientCertificate = false }
        let client = try harness.certificateClient()  // its certificate is never asked for
        let response = try client.exchange(headers: apnsRequest(), body: h2Payload(1))
        #expect(response?.status == 403 && response?.reason == "MissingProviderToken")
    }
}
