@testable import apn
import APN
import APNSupport
import Foundation
import Synchronization
import Testing
import APNTestSupport
import APNTestTraits

/// `apn send`'s feed from recipients still being read (``RecipientSupply``): it waits for
/// tokens not read yet, hands each device over once and in order, and opens `fed` only
/// once the reading ended and everything was handed over — against `apn mock-gateway`.
@Suite("apn send: the feed of recipients read while sending", .threadPerTest, .ownsChildProcesses)
struct SendFeedTests {
    private static func device(_ index: Int) -> Device {
        try! Device(String(format: "%016x", index) + String(repeating: "b3", count: 24))
    }

    @Test("recipients added in parts while sending: each once, in order, every outcome on its index")
    func recipientsAddedWhileSending() async throws {
        let fixture = try SendFixture(gatewayArguments: [])
        let flags = try Flags(["--certs", fixture.certs, "--address", fixture.address], groups: SendCommand.flagGroups)
        var options = Connection.Options()
        try CredentialFlags(flags).apply(to: &options.access)
        ConnectFlags.apply(try ConnectFlags.settings(flags), to: &options)
        options.fastMode = true
        let connection = Connection(options: options)
        let supply = RecipientSupply()
        let count = 3 * SendFeed.chunkSize + 100
        // Each index's outcomes, accepted or not.
        let seen = Mutex<[Int: [Bool]]>([:])
        let feed = SendFeed(connection: connection, notification: Notification().setAlertText("Hi"), recipients: supply) {
            index, outcome in
            seen.withLock { $0[index, default: []].append(outcome.isAccepted) }
        }
        connection.on(includingTransmitted: false) { event in
            if case .completed = event { feed.pushNext() }
        }
        // Nothing read yet: the feed waits, and is not fed.
        feed.pushNext()
        #expect(!feed.fed.isOpen)
        // Read in parts of unequal sizes, a chunk's worth and more at a time.
        var next = 0
        for size in [100, SendFeed.chunkSize + 7, 2 * SendFeed.chunkSize - 7] {
            supply.add((next..<next + size).map(Self.device), bad: [])
            next += size
            #expect(!feed.fed.isOpen, "the reading has not ended")
        }
        #expect(next == count)
        supply.finish()
        await feed.fed.wait()
        var report = await connection.flush(confirm: true)
        report.add(await connection.shutdown())
        #expect(report.accepted == count)
        #expect(seen.withLock { $0 } == Dictionary(uniqueKeysWithValues: (0..<count).map { ($0, [true]) }))
        #expect(try fixture.stop()["accepted"] as? Int == count)
        let read = await supply.finished()
        #expect(read.devices == (0..<count).map(Self.device))
    }

    @Test("nothing but the end: fed at once when the reading ends with no device")
    func noDeviceAtAll() async throws {
        let supply = RecipientSupply()
        let connection = Connection(options: Connection.Options())
        let reported = Mutex(0)
        let feed = SendFeed(connection: connection, notification: Notification(), recipients: supply) { _, _ in
            reported.withLock { $0 += 1 }
        }
        feed.pushNext()
        #expect(!feed.fed.isOpen)
        supply.finish()
        await feed.fed.wait()
        #expect(feed.stop() == 0)
        _ = await connection.shutdown()
        #expect(reported.withLock { $0 } == 0)
    }
}
