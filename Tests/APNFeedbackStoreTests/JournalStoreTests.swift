import APN
import APNFeedbackStore
import Foundation
import Testing

/// #41: the bridge's journal in the store, on both backends: a batch (rows, marks,
/// answers, pruning) in one transaction, read back with its marks by a bridge taking a dead
/// one's state over.
@Suite("Token store: the bridge's journal")
struct JournalStoreTests {
    typealias Tests = TokenStoreTests

    static func row(_ seq: Int64, instance: Int64 = 1, tenant: String = "app", answer: Int64? = nil) -> BridgeStateStore.JournalRow {
        BridgeStateStore.JournalRow(
            instance: instance, seq: seq, tenant: tenant, token: Tests.device(Int(seq)).token,
            payload: Array(#"{"aps":{"alert":"n\#(seq)"}}"#.utf8), expiry: 7, priority: 10, answer: answer,
            recordedAt: 1_000 + seq)
    }

    /// What the dead bridges on `folder`'s store left, per tenant, as a takeover by
    /// `instance` (registered here) hands it to its plan; the plan keeps nothing.
    static func leftover(_ folder: Tests.Folder, tenants: [String], instance: Int64 = 9) throws
        -> [String: BridgeStateStore.JournalLeftover]
    {
        let taker = try folder.bridgeState()
        try taker.registerBridgeInstance(instance, startedAt: 0)
        var seen: [String: BridgeStateStore.JournalLeftover] = [:]
        _ = try taker.takeOverDeadBridges(instance: instance, tenants: tenants, recordSince: 0) { tenant, _, leftover in
            seen[tenant] = leftover
            return BridgeStateStore.BridgeTakeOver()
        }
        return seen
    }

    /// SQLite schema 5 keeps the journal in segments; a row a schema-4 bridge left in
    /// `bridge_journal` (it died before the upgrade) is still taken over.
    @Test func aRowASchema4BridgeLeftIsStillTakenOver() throws {
        let folder = try Tests.Folder(.sqlite)
        _ = try folder.bridgeState()
        let row = Self.row(4, instance: 3)
        let token = row.token.map { String(format: "%02x", $0) }.joined()
        let payload = row.payload.map { String(format: "%02x", $0) }.joined()
        folder.sql("""
            INSERT INTO bridge_instances VALUES (3, 0);
            INSERT INTO bridge_journal VALUES (3, 4, 'app', X'\(token)', X'\(payload)', 7, 10, NULL, 1004);
            """)
        let left = try Self.leftover(folder, tenants: ["app"])
        #expect(left["app"]?.rows == [row])
        #expect(try Self.leftover(folder, tenants: ["app"], instance: 10).isEmpty, "taken once, then gone")
    }

    @Test(arguments: StoreBackend.available)
    func batchesAreReadBackByABridgeTakingOverWithTheirMarks(_ backend: StoreBackend) throws {
        let folder = try Tests.Folder(backend)
        var store: BridgeStateStore? = try folder.bridgeState()
        try store?.registerBridgeInstance(1, startedAt: 0)
        var first = BridgeStateStore.JournalBatch()
        first.inserts = (1...5).map { Self.row($0) } + [Self.row(6, tenant: "other")]
        first.marks = ["app": BridgeStateStore.JournalMarks(sentThrough: 3)]
        try store?.applyJournal(first, instance: 1)
        var second = BridgeStateStore.JournalBatch()
        // A mark never moves back, and one not given stays.
        second.marks = ["app": BridgeStateStore.JournalMarks(sentThrough: 2, answeredThrough: 2), "other": BridgeStateStore.JournalMarks(sentThrough: 6)]
        second.answers = [(2, 65_544)]
        second.pruneBelow = 2  // drops row 1
        try store?.applyJournal(second, instance: 1)
        #expect(try Self.leftover(folder, tenants: ["app"]).isEmpty, "a live bridge's rows are not taken over")

        store = nil  // the bridge is gone: its lock with it
        let left = try Self.leftover(folder, tenants: ["app", "other"])
        let leftover = try #require(left["app"])
        // Row 1 was pruned; SQLite keeps it while the rest of its group commit's segment
        // lives, answered (the mark passed it): a takeover never sends it again.
        let kept = leftover.rows.filter { $0.seq >= 2 }
        #expect(leftover.rows.filter { $0.seq < 2 }.allSatisfy { leftover.wasAnswered($0) && $0.answer == nil })
        #expect(backend == .postgres ? leftover.rows.count == 4 : true, "PostgreSQL drops each row")
        #expect(kept == [Self.row(2, answer: 65_544), Self.row(3), Self.row(4), Self.row(5)])
        #expect(leftover.marks == [1: BridgeStateStore.JournalMarks(sentThrough: 3, answeredThrough: 2)])
        #expect(kept.map(leftover.wasSent) == [true, true, false, false])
        #expect(kept.map(leftover.wasAnswered) == [true, false, false, false])
        #expect(left["other"]?.marks == [1: BridgeStateStore.JournalMarks(sentThrough: 6)])
    }

    @Test(arguments: StoreBackend.available)
    func aBatchWithAnEmptyTenantChangesNothing(_ backend: StoreBackend) throws {
        let folder = try Tests.Folder(backend)
        let store = try folder.bridgeState()
        var batch = BridgeStateStore.JournalBatch()
        batch.inserts = [Self.row(1), Self.row(2, tenant: "")]
        try store.registerBridgeInstance(1, startedAt: 0)
        #expect(throws: StoreError.self) { try store.applyJournal(batch, instance: 1) }
        store.releaseBridgeInstance(1)
        #expect(try Self.leftover(folder, tenants: ["app"]).isEmpty)
    }
}

/// #41: bridges on one store know each other alive by their locks; only a dead one's state
/// is taken over, once, by one survivor.
@Suite("Token store: bridges sharing a store")
struct BridgeInstancesStoreTests {
    typealias Tests = TokenStoreTests

    /// A plan that keeps every record row and forwards every journal row, under `instance`.
    static func keepAll(_ instance: Int64) -> (String, [BridgeStateStore.ResendRow], BridgeStateStore.JournalLeftover) -> BridgeStateStore.BridgeTakeOver {
        { _, record, leftover in
            BridgeStateStore.BridgeTakeOver(
                record: record.map { var row = $0; row.instance = instance; row.serial = -row.serial - 1; return row },
                journal: leftover.rows.map { var row = $0; row.instance = instance; return row })
        }
    }

    @Test(arguments: StoreBackend.available)
    func onlyADeadBridgesStateIsTakenOverAndOnlyOnce(_ backend: StoreBackend) throws {
        let folder = try Tests.Folder(backend)
        // Each bridge its own connection, as each process has.
        var first: BridgeStateStore? = try folder.bridgeState()
        let second = try folder.bridgeState()
        let third = try folder.bridgeState()
        try first?.registerBridgeInstance(1, startedAt: 1_000)
        try second.registerBridgeInstance(2, startedAt: 1_000)
        try third.registerBridgeInstance(3, startedAt: 1_000)
        var batch = BridgeStateStore.JournalBatch()
        batch.inserts = [JournalStoreTests.row(1), JournalStoreTests.row(2), JournalStoreTests.row(3, tenant: "other")]
        try first?.applyJournal(batch, instance: 1)
        try first?.applyResendChanges([.insert(ResendRecordStoreTests.row(7, instance: 1, at: 5_000))])

        // 1 is alive (its lock held): nothing is taken.
        let none = try second.takeOverDeadBridges(instance: 2, tenants: ["app"], recordSince: 0, plan: Self.keepAll(2))
        #expect(none.instances.isEmpty && none.byTenant.isEmpty)
        #expect(try second.peerResendRows(tenant: "app", excluding: 2, since: 0).count == 1, "a peer's record is readable")

        // 1 stops (its lock released): 2 takes it over; 3, looking next, finds nothing.
        first?.releaseBridgeInstance(1)
        first = nil
        let taken = try second.takeOverDeadBridges(instance: 2, tenants: ["app", "other"], recordSince: 0, plan: Self.keepAll(2))
        #expect(taken.instances == [1])
        #expect(taken.byTenant["app"]?.journal.map(\.seq) == [1, 2], "each tenant its own rows")
        #expect(taken.byTenant["other"]?.journal.map(\.seq) == [3])
        #expect(taken.byTenant["app"]?.record.map(\.serial) == [-8])
        let again = try third.takeOverDeadBridges(instance: 3, tenants: ["app"], recordSince: 0, plan: Self.keepAll(3))
        #expect(again.instances.isEmpty, "taken once")
        #expect(try third.peerResendRows(tenant: "app", excluding: 3, since: 0).map(\.instance) == [2], "now 2's")
        // 2 dies in turn: what it took over is taken again, under the next taker.
        second.releaseBridgeInstance(2)
        let afterTwo = try third.takeOverDeadBridges(instance: 3, tenants: ["app", "other"], recordSince: 0, plan: Self.keepAll(3))
        #expect(afterTwo.instances == [2])
        #expect(afterTwo.byTenant["app"]?.journal.map(\.instance) == [3, 3] && afterTwo.byTenant["other"]?.journal.count == 1)
    }

    /// Two stores on one server (two schemas, or two files) are two fleets: each may have its
    /// bridge 1, and neither sees the other's alive or dead. CI found the locks keyed by the
    /// instance alone, shared by every schema of a database.
    @Test(arguments: StoreBackend.available)
    func twoStoresEachHaveTheirOwnInstanceOne(_ backend: StoreBackend) throws {
        let one = try Tests.Folder(backend)
        let other = try Tests.Folder(backend)
        let first = try one.bridgeState()
        let second = try other.bridgeState()
        try first.registerBridgeInstance(1, startedAt: 0)
        try second.registerBridgeInstance(1, startedAt: 0)
        #expect(throws: StoreError.self, "within one store, one instance 1") {
            try one.bridgeState().registerBridgeInstance(1, startedAt: 0)
        }
        first.releaseBridgeInstance(1)
        second.releaseBridgeInstance(1)
    }
}
