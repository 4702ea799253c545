import APN
import APNBridge
import APNMockGateway
import CSQLite
import Foundation
import Testing
import APNTestSupport

/// #41 item 3's bound: with a store, what a crash (or a lost store) can lose is what was
/// read and is not yet in the journal, and the bridge keeps that below
/// ``Bridge/Configuration/maxUnjournaled`` (plus one decoded batch a connection): while the
/// store takes no commit, the connections stop reading instead of growing it.
@Suite("the bridge: the journal bounds what a crash loses", .timeLimit(.minutes(5)))
struct BridgeJournalBoundTests {
    @Test func readingWaitsWhileTheStoreTakesNoCommitThenEachIsDeliveredOnce() async throws {
        let count = 1_000
        let limit = 100
        let fixture = try BridgeFixture(storeFeedback: true) { $0.maxUnjournaled = limit }
        let path = try #require(fixture.configuration.storePath)
        // Another connection holds the store's write lock (WAL: readers go on, writers wait).
        var handle: OpaquePointer?
        #expect(sqlite3_open(path, &handle) == SQLITE_OK)
        defer { sqlite3_close(handle) }
        #expect(sqlite3_exec(handle, "BEGIN IMMEDIATE", nil, nil, nil) == SQLITE_OK)
        var locked = true
        defer { if locked { sqlite3_exec(handle, "ROLLBACK", nil, nil, nil) } }

        let frames = RawFrames(count: count, command: .enhanced)
        let client = try RawBinaryClient(fixture)
        _ = try client.write(frames, indices: Array(0..<count), round: 0, awaitingResponse: false)
        #expect(
            await fixture.wait(timeout: .seconds(60)) { $0.waitingForStore == 1 && ($0.unjournaled["app"] ?? 0) >= limit },
            "the journal filled and the connection waits for the store")
        let held = fixture.bridge.summary
        let batch = 512  // BridgeConnectionHandler.batchLimit: decoded once the gate let it read
        #expect(held.counts.received <= limit + batch, "no more read while nothing commits: \(held.counts.received)")
        #expect((held.unjournaled["app"] ?? 0) <= limit + batch)
        #expect(fixture.upstream.recordCount == 0, "nothing handed upstream before its row is in the store")

        #expect(sqlite3_exec(handle, "COMMIT", nil, nil, nil) == SQLITE_OK)
        locked = false
        #expect(await fixture.wait(timeout: .seconds(120)) { $0.counts.delivered == count }, "\(fixture.bridge.summary.counts)")
        #expect(fixture.bridge.summary.unjournaled["app"] == 0)
        let deliveries = fixture.deliveries()
        #expect(deliveries.count == count && deliveries.values.allSatisfy { $0 == 1 }, "each upstream once")
        client.connection.close()
    }
}
