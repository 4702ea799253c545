import APN
import Foundation
import APNMockGateway
import Testing
import APNTestTraits

/// docs/LIBRARY.md's broadcast snippet, verbatim, run against the HTTP/2 mock gateway.
@Suite("docs/LIBRARY.md: broadcast channels", .threadPerTest)
struct ReadmeBroadcastExampleTests {
    @Test func theBroadcastExampleCreatesBroadcastsAndDeletes() async throws {
        let fixture = try ProviderFixture(keyID: "ABC123DEFG", teamID: "DEF123GHIJ")
        defer { _ = fixture.gateway.stop() }
        var options = Provider.Options()
        options.authentication = .token(keyID: "ABC123DEFG", teamID: "DEF123GHIJ", key: "AuthKey_ABC123DEFG.p8")
        options.topic = "com.example.app"
        // Not in docs/LIBRARY.md: the mock's key and address instead of Apple's.
        try fixture.redirect(&options, keyID: "ABC123DEFG", teamID: "DEF123GHIJ")
        let provider = Provider(options: options)

        // docs/LIBRARY.md:
        let channels = BroadcastChannels(options: options)   // the same credentials and topic
        let channel = try await channels.create(storagePolicy: .noMessageStored)
        print(channel.id)                                    // the app starts its activity with this id
        let update = PushNotification()
        update.event = "update"
        update.timestamp = Int(Date().timeIntervalSince1970)
        update.contentState = ["score": "1-0"]
        let sent = try await provider.broadcast(update, to: channel)   // liveactivity, expiration 0
        print(sent.uniqueID ?? "")                                     // apns-unique-id, to quote to Apple
        print(try await channels.list())                               // every channel id of the app
        try await channels.delete(channel.id)
        await channels.shutdown()

        await provider.shutdown()
        #expect(fixture.gateway.broadcasts.map(\.channelID) == [channel.id])
        #expect(sent.uniqueID == fixture.gateway.broadcasts.first?.uniqueID)
        #expect(fixture.gateway.channels(bundleID: "com.example.app").isEmpty)
    }
}
