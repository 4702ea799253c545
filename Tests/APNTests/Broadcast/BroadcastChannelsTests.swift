import APN
import APNMockGateway
import APNTestTraits
import Foundation
import Testing

/// ``BroadcastChannels`` and ``Provider/broadcast(_:to:bundleID:)`` against a running
/// ``HTTP2MockGateway``, which applies Apple's checks to every request they write: channels
/// created, read, listed and deleted, broadcasts recorded, Apple's refusals typed, and a
/// create never sent twice.
@Suite(.threadPerTest) struct BroadcastChannelsTests {
    static let app = ProviderFixture.topic

    /// An update for a Live Activity, as a broadcast carries it.
    static func update(score: Int = 1) -> PushNotification {
        let note = PushNotification()
        note.event = "update"
        note.timestamp = 1_700_000_000
        note.contentState = ["score": .number(Double(score))]
        return note
    }

    @Test func createsReadsListsAndDeletesWithProviderTokens() async throws {
        let fixture = try ProviderFixture()
        let channels = BroadcastChannels(options: try fixture.tokenOptions())
        let stored = try await channels.create(storagePolicy: .mostRecentMessageStored)
        let transient = try await channels.create(storagePolicy: .noMessageStored)
        #expect(stored.storagePolicy == .mostRecentMessageStored && transient.storagePolicy == .noMessageStored)
        #expect(Set(fixture.gateway.channels(bundleID: Self.app).map(\.id)) == [stored.id, transient.id])
        #expect(fixture.gateway.channels(bundleID: Self.app).first { $0.id == transient.id }?.messageStoragePolicy == 0)

        #expect(try await channels.read(stored.id) == stored)
        #expect(try await channels.read(transient.id) == transient)
        #expect(Set(try await channels.list()) == [stored.id, transient.id])

        try await channels.delete(transient.id)
        #expect(try await channels.list() == [stored.id])
        let error = try await #require(throws: ProviderError.self) { try await channels.read(transient.id) }
        #expect(error.code == .rejected && error.status == 400 && error.reason == .channelNotRegistered)
        #expect(error.requestID != nil, "Apple's apns-request-id, to quote")
        await channels.shutdown()
        _ = fixture.gateway.stop()
    }

    @Test func takesTheClientCertificate() async throws {
        let fixture = try ProviderFixture()
        let channels = BroadcastChannels(options: try fixture.certificateOptions())
        let channel = try await channels.create(storagePolicy: .noMessageStored, bundleID: Self.app)
        #expect(try await channels.list(bundleID: Self.app) == [channel.id])
        await channels.shutdown()
        _ = fixture.gateway.stop()
    }

    @Test func broadcastsToAChannel() async throws {
        let fixture = try ProviderFixture()
        let options = try fixture.tokenOptions()
        let channels = BroadcastChannels(options: options)
        let channel = try await channels.create(storagePolicy: .mostRecentMessageStored)
        let provider = Provider(options: options)
        let note = Self.update(score: 3)
        note.priority = 5
        note.expiry = 1_900_000_000
        let requestID = UUID()
        note.apnsID = requestID
        let response = try await provider.broadcast(note, to: channel)
        #expect(response.status == 200 && response.attempts == 1 && response.channel == channel)
        #expect(response.requestID == requestID)
        let records = fixture.gateway.broadcasts
        #expect(records.count == 1)
        let record = try #require(records.first)
        #expect(record.channelID == channel.id && record.bundleID == Self.app)
        #expect(record.priority == 5 && record.expiration == 1_900_000_000)
        #expect(record.requestID == requestID.uuidString.lowercased())
        #expect(response.uniqueID == record.uniqueID)
        #expect(record.payload == note.compiledPayload())

        // A topic with the Live Activity suffix names the same app.
        let suffixed = Self.update()
        suffixed.topic = Self.app + ".push-type.liveactivity"
        try await provider.broadcast(suffixed, to: BroadcastChannel(id: channel.id))
        #expect(fixture.gateway.broadcasts.count == 2)
        await provider.shutdown()
        await channels.shutdown()
        _ = fixture.gateway.stop()
    }

    @Test func refusesWhatAppleWouldBeforeSending() async throws {
        let fixture = try ProviderFixture()
        let provider = Provider(options: try fixture.tokenOptions())
        let quiet = BroadcastChannel(id: "dHN0LXNyY2gtY2hubA==", storagePolicy: .noMessageStored)
        let start = Self.update()
        start.event = "start"
        let alert = Self.update()
        alert.pushType = .alert
        let stored = Self.update()
        stored.expiry = 1_900_000_000
        let large = Self.update()
        large.contentState = ["text": .string(String(repeating: "x", count: 5_200))]
        let slow = Self.update()
        slow.priority = 7
        let cases: [(PushNotification, BroadcastChannel, String?, String)] = [
            (start, quiet, nil, "cannot start"),
            (alert, quiet, nil, "InvalidPushType"),
            (stored, quiet, nil, "BadExpirationDate"),
            (large, quiet, nil, "5120"),
            (slow, quiet, nil, "BadPriority"),
            (Self.update(), BroadcastChannel(id: "not base64!"), nil, "BadChannelId"),
            (Self.update(), quiet, "com.example.app.push-type.liveactivity", "TopicDisallowed"),
            (Self.update(), quiet, "com.example/app", "not one"),
        ]
        for (note, channel, bundleID, expected) in cases {
            let error = try await #require(throws: ProviderError.self) {
                try await provider.broadcast(note, to: channel, bundleID: bundleID)
            }
            #expect(error.code == .invalidNotification, "\(expected)")
            #expect(error.message.contains(expected), "\(error.message)")
        }
        #expect(fixture.gateway.summary.statuses.values.reduce(0, +) == 0, "nothing was sent")
        await provider.shutdown()
        _ = fixture.gateway.stop()
    }

    @Test func typesApplesRefusals() async throws {
        let fixture = try ProviderFixture { $0.channelLimit = 1 }
        let options = try fixture.tokenOptions()
        let channels = BroadcastChannels(options: options)
        let provider = Provider(options: options)
        let quiet = try await channels.create(storagePolicy: .noMessageStored)

        // The limit.
        let full = try await #require(throws: ProviderError.self) {
            try await channels.create(storagePolicy: .noMessageStored)
        }
        #expect(full.reason == .cannotCreateChannelConfig && full.status == 400)

        // A nonzero expiration on a channel whose policy the caller did not know: Apple's answer.
        let stored = Self.update()
        stored.expiry = 1_900_000_000
        let expiration = try await #require(throws: ProviderError.self) {
            try await provider.broadcast(stored, to: BroadcastChannel(id: quiet.id))
        }
        #expect(expiration.reason == .badExpirationDate && expiration.requestID != nil)

        // A channel that does not exist.
        let unknown = try await #require(throws: ProviderError.self) {
            try await provider.broadcast(Self.update(), to: BroadcastChannel(id: "dHN0LXNyY2gtY2hubA=="))
        }
        #expect(unknown.reason == .channelNotRegistered)

        // The capability off.
        fixture.gateway.updateFaults { $0.broadcastDisabled = true }
        let disabled = try await #require(throws: ProviderError.self) { try await channels.list() }
        #expect(disabled.reason == .featureNotEnabled)
        #expect(fixture.gateway.broadcasts.isEmpty)
        await provider.shutdown()
        await channels.shutdown()
        _ = fixture.gateway.stop()
    }

    @Test func neverSendsACreateTwiceButRetriesTheRest() async throws {
        let fixture = try ProviderFixture()
        let channels = BroadcastChannels(options: try fixture.tokenOptions())
        fixture.gateway.updateFaults { $0.failingRequests = 1 }
        let failed = try await #require(throws: ProviderError.self) {
            try await channels.create(storagePolicy: .noMessageStored)
        }
        #expect(failed.status == 500 && failed.reason == .internalServerError && failed.mayHaveBeenDelivered)
        #expect(fixture.gateway.channels(bundleID: Self.app).isEmpty)
        #expect(fixture.gateway.summary.statuses.values.reduce(0, +) == 1, "sent once")

        let channel = try await channels.create(storagePolicy: .noMessageStored)
        fixture.gateway.updateFaults { $0.failingRequests = 1 }
        #expect(try await channels.read(channel.id) == channel, "a read is retried after a 500")
        fixture.gateway.updateFaults { $0.throttledRequests = 1 }
        let created = try await channels.create(storagePolicy: .mostRecentMessageStored)
        #expect(fixture.gateway.channels(bundleID: Self.app).count == 2, "a 429 is retried: nothing was made")
        #expect(created.storagePolicy == .mostRecentMessageStored)
        await channels.shutdown()
        _ = fixture.gateway.stop()
    }

    @Test func neverSendsABroadcastTwiceAfterAServerErrorButRetriesA429() async throws {
        let fixture = try ProviderFixture()
        let options = try fixture.tokenOptions()
        let channels = BroadcastChannels(options: options)
        let channel = try await channels.create(storagePolicy: .noMessageStored)
        let provider = Provider(options: options)
        let before = fixture.gateway.summary.statuses.values.reduce(0, +)
        fixture.gateway.updateFaults { $0.failingRequests = 1 }
        let failed = try await #require(throws: ProviderError.self) { try await provider.broadcast(Self.update(), to: channel) }
        #expect(failed.status == 500 && failed.mayHaveBeenDelivered, "it may have reached every device on the channel")
        #expect(fixture.gateway.summary.statuses.values.reduce(0, +) == before + 1, "sent once")
        fixture.gateway.updateFaults { $0.throttledRequests = 1 }
        let response = try await provider.broadcast(Self.update(), to: channel)
        #expect(response.attempts == 2 && fixture.gateway.broadcasts.count == 1, "a 429 is retried: nothing was sent")
        await provider.shutdown()
        await channels.shutdown()
        _ = fixture.gateway.stop()
    }

    /// A create whose connection is lost once Apple made the channel, before its answer
    /// came: it fails as may have been made, and is not sent again.
    @Test func aCreateLostInFlightIsNotSentAgain() async throws {
        let fixture = try ProviderFixture()
        let channels = BroadcastChannels(options: try fixture.tokenOptions())
        fixture.gateway.updateFaults {
            $0.responseDelay = .seconds(60)
            $0.resetAfterRequests = 2
        }
        let create = Task { try await channels.create(storagePolicy: .noMessageStored) }
        #expect(fixture.gateway.waitForSummary(timeout: .seconds(30)) { $0.statuses[201] == 1 }, "the channel was made")
        let list = Task { try await channels.list() }
        let lost = try await #require(throws: ProviderError.self) { try await create.value }
        #expect(lost.code == .connectionFailed && lost.mayHaveBeenDelivered)
        _ = await list.result
        fixture.gateway.updateFaults {
            $0.responseDelay = .zero
            $0.resetAfterRequests = nil
        }
        #expect(try await channels.list().count == 1, "one channel: the create was not sent again")
        #expect(fixture.gateway.summary.statuses[201] == 1)
        await channels.shutdown()
        _ = fixture.gateway.stop()
    }

    @Test func pointsAtApplesManagementHostByEnvironment() throws {
        var options = Provider.Options()
        options.topic = Self.app
        #expect(BroadcastChannels(options: options).options.host == "api-manage-broadcast.sandbox.push.apple.com")
        #expect(BroadcastChannels(options: options).options.port == 2195)
        options.production = true
        #expect(BroadcastChannels(options: options).options.host == "api-manage-broadcast.push.apple.com")
        #expect(BroadcastChannels(options: options).options.port == 2196)
        options.address = "127.0.0.1"
        options.port = 8443
        #expect(BroadcastChannels(options: options).options.host == "127.0.0.1")
        #expect(BroadcastChannels(options: options).options.port == 8443)
    }
}
