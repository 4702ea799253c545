import APNWire
import Foundation
@testable import APNMockGateway
import Testing

/// The channels the mock keeps per bundle id, and what each channel or broadcast request
/// comes to given them: a table of steps, each with the judgement it must get.
@Suite struct ChannelRegistryTests {
    typealias Judgement = ChannelRegistry.Judgement

    static let app = "com.example.app"
    static let other = "com.example.other"
    static let seed: UInt64 = 0x0102_0304_0506_0708

    /// The id of the `serial`-th channel created.
    static func id(_ serial: UInt64) -> String { ChannelRegistry.channelID(seed: seed, serial: serial) }

    static func send(_ serial: UInt64, expiration: Int = 0) -> BroadcastRequest.Operation {
        .send(BroadcastSend(channelID: id(serial), priority: 10, expiration: expiration, payload: Array("{}".utf8)))
    }

    static let create0 = BroadcastRequest.Operation.create(messageStoragePolicy: 0, pushType: "LiveActivity")
    static let create1 = BroadcastRequest.Operation.create(messageStoragePolicy: 1, pushType: "LiveActivity")

    /// One scenario: steps on a registry with `limit`, each `(bundle id, operation, expected)`.
    struct Scenario: Sendable, CustomTestStringConvertible {
        let name: String
        let limit: Int
        let steps: [(String, BroadcastRequest.Operation, Judgement)]
        var testDescription: String { name }
    }

    static let scenarios: [Scenario] = [
        Scenario(name: "create, read, list, delete, then the channel is gone", limit: 10, steps: [
            (app, create1, .created(id(1))),
            (app, .read(id(1)), .channel(.init(id: id(1), messageStoragePolicy: 1, pushType: "LiveActivity"))),
            (app, create0, .created(id(2))),
            (app, .list, .list([id(1), id(2)])),
            (app, .delete(id(1)), .deleted),
            (app, .read(id(1)), .refused(.channelNotRegistered)),
            (app, .delete(id(1)), .refused(.channelNotRegistered)),
            (app, .list, .list([id(2)])),
        ]),
        Scenario(name: "channels belong to their bundle id", limit: 10, steps: [
            (app, create1, .created(id(1))),
            (other, .read(id(1)), .refused(.channelNotRegistered)),
            (other, send(1), .refused(.channelNotRegistered)),
            (other, .list, .list([])),
            (app, send(1), .sent),
        ]),
        Scenario(name: "a nonzero expiration only on a channel that stores", limit: 10, steps: [
            (app, create0, .created(id(1))),
            (app, create1, .created(id(2))),
            (app, send(1, expiration: 1_700_000_000), .refused(.badExpirationDate)),
            (app, send(1, expiration: 0), .sent),
            (app, send(2, expiration: 1_700_000_000), .sent),
            (app, send(3), .refused(.channelNotRegistered)),
        ]),
        Scenario(name: "the limit is per bundle id, and a delete makes room; ids never repeat", limit: 2, steps: [
            (app, create0, .created(id(1))),
            (app, create0, .created(id(2))),
            (app, create0, .refused(.cannotCreateChannelConfig)),
            (other, create0, .created(id(3))),
            (app, .delete(id(1)), .deleted),
            (app, create0, .created(id(4))),
            (app, .list, .list([id(2), id(4)])),
        ]),
    ]

    @Test(arguments: scenarios)
    func judges(_ scenario: Scenario) {
        var registry = ChannelRegistry(limit: scenario.limit, seed: Self.seed)
        for (index, (bundleID, operation, expected)) in scenario.steps.enumerated() {
            #expect(registry.judge(operation, bundleID: bundleID) == expected, "step \(index + 1)")
        }
    }

    @Test func idsAreBase64OfTheSeedAndACounter() throws {
        let id = Self.id(1)
        #expect(id == "AQIDBAUGBwgAAAAAAAAAAQ==")
        let bytes = try #require(Data(base64Encoded: id))
        #expect(bytes.count == 16)
        #expect(RequestValidator.isBase64(id))
        #expect(Self.id(2) != id)
    }

    @Test func tenThousandChannelsByDefault() {
        #expect(HTTP2MockGateway.Configuration().channelLimit == 10_000)
        var registry = ChannelRegistry(limit: 10_000, seed: 1)
        for _ in 0..<10_000 { _ = registry.create(bundleID: Self.app, messageStoragePolicy: 0, pushType: "LiveActivity") }
        #expect(registry.ids(bundleID: Self.app).count == 10_000)
        #expect(registry.judge(Self.create0, bundleID: Self.app) == .refused(.cannotCreateChannelConfig))
    }

    @Test("bounded across bundle ids too; a bundle id whose channels are all deleted is forgotten and frees its room")
    func boundedAcrossBundleIDs() {
        var registry = ChannelRegistry(limit: 10, seed: 1, totalLimit: 3)
        for name in ["a", "b", "c"] { #expect(registry.create(bundleID: name, messageStoragePolicy: 0, pushType: "LiveActivity") != nil) }
        #expect(registry.judge(Self.create0, bundleID: "d") == .refused(.cannotCreateChannelConfig))
        #expect(registry.total == 3)
        let id = registry.ids(bundleID: "a")[0]
        #expect(registry.judge(.delete(id), bundleID: "a") == .deleted)
        #expect(registry.total == 2 && registry.ids(bundleID: "a").isEmpty)
        guard case .created = registry.judge(Self.create0, bundleID: "d") else {
            Issue.record("the room a deleted channel freed was not given")
            return
        }
        #expect(registry.total == 3)
    }
}

/// The accepted broadcasts the mock keeps: numbered in order, the oldest let go beyond the
/// limit or once released, and their record file line.
@Suite struct BroadcastStoreTests {
    static func record(_ payload: String = "{}") -> HTTP2MockGateway.BroadcastRecord {
        HTTP2MockGateway.BroadcastRecord(
            connection: 2, sequence: 0, bundleID: "com.example.app", channelID: "AAAAAAAAAAAAAAAAAAAAAA==", priority: 5,
            expiration: 0, requestID: "r", uniqueID: "u", payload: Array(payload.utf8),
            authentication: .token(keyID: "K", teamID: "T"))
    }

    @Test func keepsTheLatestAtLeastAndReleasesOnRequest() {
        var store = BroadcastStore(limit: 2)
        for _ in 0..<5 { store.append(Self.record()) }
        #expect(store.count == 5)
        #expect(store.records(from: 0, limit: .max).map(\.sequence) == [4, 5])
        #expect(store.records(from: 3, limit: 1).map(\.sequence) == [4])
        store.release(upTo: 4)
        #expect(store.records(from: 0, limit: .max).map(\.sequence) == [5])
        var none = BroadcastStore(limit: 0)
        none.append(Self.record())
        #expect(none.count == 1 && none.records(from: 0, limit: .max).isEmpty)
    }

    @Test func writesItsRecordLine() {
        var record = Self.record(#"{"aps":{"event":"end"}}"#)
        record.sequence = 7
        var lines = RecordLineBuffer()
        BroadcastStore.appendLine(record, to: &lines)
        let text = lines.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
        #expect(text == #"""
            {"protocol":"http2","kind":"broadcast","connection":2,"seq":7,"bundle_id":"com.example.app","channel_id":"AAAAAAAAAAAAAAAAAAAAAA==","priority":5,"expiration":0,"request_id":"r","unique_id":"u","auth":"token","key_id":"K","team_id":"T","payload":"{\"aps\":{\"event\":\"end\"}}"}

            """#)
    }
}
