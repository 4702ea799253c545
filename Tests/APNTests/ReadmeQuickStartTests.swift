import APN
import APNTLS
import Foundation
import APNMockGateway
import Testing
import APNTestSupport
import APNTestTraits

/// README's quick start, verbatim, run against the HTTP/2 mock and the binary mock on
/// loopback with certificates and a provider key made now; and a check that README still
/// shows exactly the code this test runs.
@Suite("README: quick start", .timeLimit(.minutes(10)), .threadPerTest)
struct ReadmeQuickStartTests {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test("the quick start sends one notification through each client")
    func theQuickStartDelivers() async throws {
        let fixture = try ProviderFixture(keyID: "ABC123DEFG", teamID: "DEF123GHIJ")
        defer { _ = fixture.gateway.stop() }

        // README, quick start, first block:
        var options = Provider.Options()
        options.authentication = .token(keyID: "ABC123DEFG", teamID: "DEF123GHIJ", key: "AuthKey_ABC123DEFG.p8")
        options.topic = "com.example.app"                // your app's bundle id; sandbox unless options.production

        #expect(options.host == "api.sandbox.push.apple.com")
        // Not in the README: the mock's key and address instead of Apple's sandbox.
        try fixture.redirect(&options, keyID: "ABC123DEFG", teamID: "DEF123GHIJ")

        // README, quick start, second block:
        let provider = Provider(options: options)
        let device = try Device("a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90")
        let response = try await provider.send(PushNotification().setAlertText("Hello"), to: device)
        print(response.status ?? 0, response.apnsID?.uuidString ?? "")   // 200 and the apns-id
        await provider.shutdown()

        #expect(response.status == 200)
        #expect(response.apnsID != nil)
        #expect(fixture.gateway.records.map(\.token) == [device.hexString])
        #expect(fixture.gateway.records.first?.topic == "com.example.app")

        // README, quick start, third block:
        let gateway = try MockGateway()
        try gateway.start()
        let mock = try gateway.clientCredentials()                         // PEM text any TLS client reads
        var binary = Connection.Options()
        binary.point(at: mock.host, port: mock.gatewayPort, certificatePEM: mock.certificatePEM,
                     privateKeyPEM: mock.privateKeyPEM, trustingPEM: mock.certificateAuthorityPEM)
        let connection = Connection(options: binary)
        let outcome = await connection.send(Notification().setAlertText("Hello"), to: device)
        print(outcome)                                                     // accepted (flush)
        await connection.shutdown()
        _ = gateway.stop()

        #expect(outcome.isAccepted)
        #expect(gateway.records.map(\.token) == [device.token])
    }

    @Test("README's quick-start blocks are this test's code, line for line")
    func theReadmeShowsThisCode() throws {
        let readme = try String(contentsOf: Self.repository.appendingPathComponent("README.md"), encoding: .utf8)
        let start = try #require(readme.range(of: "## Quick start\n"))
        let end = try #require(readme.range(of: "\n## ", range: start.upperBound..<readme.endIndex))
        let blocks = ReadmeSnippetTests.swiftBlocks(in: String(readme[start.upperBound..<end.lowerBound]))
        #expect(blocks.count == 3, "README's quick start should hold three swift blocks")
        let source = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
            .components(separatedBy: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        for block in blocks {
            let lines = block.map { $0.trimmingCharacters(in: .whitespaces) }
            #expect(!lines.isEmpty)
            let found = source.indices.contains { source[$0...].starts(with: lines) }
            #expect(found, "README's quick-start block is not this test's code:\n\(block.joined(separator: "\n"))")
        }
    }
}
