import APN
import APNMockGateway
import Testing
import APNTestSupport
import APNTestTraits

/// A Provider's log (#27 item 8): its connection and provider tokens, never the token
/// itself or the key.
@Suite("Provider: logging", .timeLimit(.minutes(10)), .threadPerTest)
struct ProviderLoggingTests {
    @Test("connections at debug, the token's signing at info, verification off at warning; no token, no key")
    func providerLog() async throws {
        let fixture = try ProviderFixture()
        defer { _ = fixture.gateway.stop() }
        let log = CapturingLogHandler()
        var options = try fixture.tokenOptions()
        options.rejectUnauthorized = false
        options.logHandler = log
        let provider = Provider(options: options)
        let response = try await provider.send(PushNotification().setAlertText("hi"), to: ProviderFixture.device(1))
        #expect(response.isSuccess)
        await provider.shutdown()

        let entries = log.entries
        #expect(entries.allSatisfy { $0.label == "swift-apn.provider" })
        #expect(entries.filter { $0.level == .warning }.map(\.message) == [
            "TLS peer verification is off (rejectUnauthorized: false); the server's identity is not checked",
        ])
        #expect(entries.contains { $0.level == .debug && $0.message == "connected" && $0.metadata["peer"] != nil })
        let signed = try #require(entries.first { $0.message == "provider token signed" })
        #expect(signed.level == .info && signed.metadata.keys.sorted() == ["issued_at"])
        #expect(!log.mentions("eyJ"), "no JSON Web Token")
        #expect(!log.mentions("PRIVATE KEY"))
        #expect(!log.mentions(ProviderFixture.device(1).hexString))
    }
}
