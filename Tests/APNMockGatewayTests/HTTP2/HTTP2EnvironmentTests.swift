import APN
import APNHTTP2
import APNTLS
import APNMockGateway
import APNTestSupport
import APNTestTraits
import Testing

/// Issue #26 row 5: the gateway is one push environment, and a certificate marked for the
/// other one only is refused on every request, as Apple answers each; a certificate for
/// both environments names its topics in Apple's topics extension.
@Suite(.threadPerTest) struct HTTP2EnvironmentTests {
    /// A client presenting a certificate from the gateway's CA with these markings.
    private func client(
        _ harness: HTTP2Harness, environments: [PushEnvironment], topics: [PushTopic] = []
    ) throws -> HTTP2TestClient {
        let credentials = try harness.gateway.certificateAuthority.issueClientCertificate(
            topic: HTTP2Harness.topic, environments: environments, topics: topics
        ).credentials()
        let context = try TLSClientContext(
            trustedCertificates: [harness.gateway.certificateAuthority.certificate], credentials: credentials,
            applicationProtocols: ["h2"])
        return try HTTP2TestClient.connect(port: harness.gateway.port, context: context)
    }

    @Test(arguments: [
        (PushEnvironment.sandbox, [PushEnvironment.production]), (.production, [.sandbox]),
    ])
    func aCertificateForTheOtherEnvironmentOnlyGets403OnEveryRequest(
        gatewayEnvironment: PushEnvironment, marked: [PushEnvironment]
    ) throws {
        let harness = try HTTP2Harness { $0.environment = gatewayEnvironment }
        let client = try client(harness, environments: marked)
        for n in 1...2 {
            let response = try client.exchange(headers: apnsRequest(token: deviceToken(n)), body: h2Payload(n))
            #expect(response?.status == 403)
            #expect(response?.reason == "BadCertificateEnvironment")
        }
        #expect(harness.gateway.recordCount == 0)
        #expect(harness.gateway.summary.reasons[.badCertificateEnvironment] == 2)
    }

    @Test(arguments: [
        (PushEnvironment.sandbox, [PushEnvironment.sandbox]), (.production, [.production]),
        (.sandbox, [.sandbox, .production]), (.production, [.sandbox, .production]),
    ])
    func aCertificateForTheGatewaysEnvironmentIsAccepted(gatewayEnvironment: PushEnvironment, marked: [PushEnvironment]) throws {
        let harness = try HTTP2Harness { $0.environment = gatewayEnvironment }
        let client = try client(harness, environments: marked)
        #expect(try client.exchange(headers: apnsRequest(), body: h2Payload(1))?.status == 200)
    }

    @Test func aCertificateForBothEnvironmentsPushesToTheTopicsOfItsExtension() throws {
        let harness = try HTTP2Harness()
        let client = try client(
            harness, environments: [.sandbox, .production], topics: PushTopic.universal(bundleID: HTTP2Harness.topic))
        let voip = try client.exchange(headers: apnsRequest(topic: HTTP2Harness.topic + ".voip", pushType: "voip"), body: h2Payload(1))
        #expect(voip?.status == 200)
        let none = try client.exchange(headers: apnsRequest(topic: nil), body: h2Payload(2))
        #expect(none?.status == 400 && none?.reason == "MissingTopic", "several topics: the request must name one")
        let other = try client.exchange(headers: apnsRequest(topic: "com.example.other"), body: h2Payload(3))
        #expect(other?.status == 400 && other?.reason == "TopicDisallowed")
        #expect(harness.gateway.records.map(\.topic) == [HTTP2Harness.topic + ".voip"])
    }
}
