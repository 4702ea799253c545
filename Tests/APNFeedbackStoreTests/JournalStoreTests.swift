import APN
import APNFeedbackStore
import Testing

/// #41: the bridge's journal in the store, on both backends: a batch (rows, marks,
/// answers, pruning) in one transaction; what other instances left read back with their
/// marks; a takeover that drops it and writes the record and the journal to forward again.
@Suite("Token store: the bridge's journal")
struct JournalStoreTests {
    typealias Tests = TokenStoreTests

    static func row(_ seq: Int64, instance: Int64 = 1, tenant: String = "app", answer: Int64? = nil) -> TokenStore.JournalRow {
        TokenStore.JournalRow(
            instance: instance, seq: seq, tenant: tenant, token: Tests.device(Int(seq)).token,
            payload: Array(#"{"aps":{"alert":"n\#(seq)"}}"#.utf8), expiry: 7, priority: 10, answer: answer,
            recordedAt: 1_000 + seq)
    }

    @Test(arguments: StoreBackend.available)
    func batchesAreReadBackByAnotherInstanceWithTheirMarks(_ backend: StoreBackend) throws {
        let folder = try Tests.Folder(backend)
        let store = try folder.store()
        var first = TokenStore.JournalBatch()
        first.inserts = (1...5).map { Self.row($0) } + [Self.row(6, tenant: "other")]
        first.marks = ["app": TokenStore.JournalMarks(sentThrough: 3)]
        try store.applyJournal(first, instance: 1)
        var second = TokenStore.JournalBatch()
        // A mark never moves back, and one not given stays.
        second.marks = ["app": TokenStore.JournalMarks(sentThrough: 2, answeredThrough: 2), "other": TokenStore.JournalMarks(sentThrough: 6)]
        second.answers = [(2, 65_544)]
        second.pruneBelow = 2  // drops row 1
        try store.applyJournal(second, instance: 1)

        let leftover = try folder.store().journalLeftover(tenant: "app", excluding: 9)
        #expect(leftover.rows == [Self.row(2, answer: 65_544), Self.row(3), Self.row(4), Self.row(5)])
        #expect(leftover.marks == [1: TokenStore.JournalMarks(sentThrough: 3, answeredThrough: 2)])
        #expect(leftover.rows.map(leftover.wasSent) == [true, true, false, false])
        #expect(leftover.rows.map(leftover.wasAnswered) == [true, false, false, false])
        #expect(try store.journalLeftover(tenant: "app", excluding: 1).rows.isEmpty, "an instance's own rows are not left over")
        #expect(try store.journalLeftover(tenant: "other", excluding: 9).marks == [1: TokenStore.JournalMarks(sentThrough: 6)])
    }

    @Test(arguments: StoreBackend.available)
    func aTakeOverDropsWhatOthersLeftAndWritesItsOwn(_ backend: StoreBackend) throws {
        let folder = try Tests.Folder(backend)
        let store = try folder.store()
        var batch = TokenStore.JournalBatch()
        batch.inserts = [Self.row(1), Self.row(2), Self.row(1, instance: 2, tenant: "other")]
        batch.marks = ["app": TokenStore.JournalMarks(sentThrough: 1)]
        try store.applyJournal(batch, instance: 1)
        let record = [
            TokenStore.ResendRow(
                instance: 5, serial: 0, tenant: "app", token: [1], payload: [2], expiry: 0, priority: 10, answer: 1,
                recordedAt: 1_001)
        ]
        try store.takeOverBridgeState(tenant: "app", instance: 5, record: record, journal: [Self.row(1, instance: 5)])
        #expect(try store.journalLeftover(tenant: "app", excluding: 9).rows == [Self.row(1, instance: 5)])
        #expect(try store.journalLeftover(tenant: "app", excluding: 9).marks.isEmpty)
        #expect(try store.resendRows(tenant: "app", recordedSince: 0) == record)
        #expect(try store.journalLeftover(tenant: "other", excluding: 9).rows.count == 1, "another tenant's rows stay")
    }

    @Test(arguments: StoreBackend.available)
    func aBatchWithAnEmptyTenantChangesNothing(_ backend: StoreBackend) throws {
        let folder = try Tests.Folder(backend)
        let store = try folder.store()
        var batch = TokenStore.JournalBatch()
        batch.inserts = [Self.row(1), Self.row(2, tenant: "")]
        #expect(throws: StoreError.self) { try store.applyJournal(batch, instance: 1) }
        #expect(try store.journalLeftover(tenant: "app", excluding: 9).rows.isEmpty)
    }
}

/// #41: bridges on one store know each other alive by their locks; only a dead one's state
/// is taken over, once, by one survivor.
@Suite("Token store: bridges sharing a store")
struct BridgeInstancesStoreTests {
    typealias Tests = TokenStoreTests

    /// A plan that keeps every record row and forwards every journal row, under `instance`.
    static func keepAll(_ instance: Int64) -> (String, [TokenStore.ResendRow], TokenStore.JournalLeftover) -> TokenStore.BridgeTakeOver {
        { _, record, leftover in
            TokenStore.BridgeTakeOver(
                record: record.map { var row = $0; row.instance = instance; row.serial = -row.serial - 1; return row },
                journal: leftover.rows.map { var row = $0; row.instance = instance; return row })
        }
    }

    @Test(arguments: StoreBackend.available)
    func onlyADeadBridgesStateIsTakenOverAndOnlyOnce(_ backend: StoreBackend) throws {
        let folder = try Tests.Folder(backend)
        // Each bridge its own connection, as each process has.
        var first: TokenStore? = try folder.store()
        let second = try folder.store()
        let third = try folder.store()
        try first?.registerBridgeInstance(1, startedAt: 1_000)
        try second.registerBridgeInstance(2, startedAt: 1_000)
        try third.registerBridgeInstance(3, startedAt: 1_000)
        var batch = TokenStore.JournalBatch()
        batch.inserts = [JournalStoreTests.row(1), JournalStoreTests.row(2)]
        try first?.applyJournal(batch, instance: 1)
        try first?.applyResendChanges([.insert(ResendRecordStoreTests.row(7, instance: 1, at: 5_000))])

        // 1 is alive (its lock held): nothing is taken.
        let none = try second.takeOverDeadBridges(instance: 2, tenants: ["app"], recordSince: 0, plan: Self.keepAll(2))
        #expect(none.instances.isEmpty && none.byTenant.isEmpty)
        #expect(try second.peerResendRows(tenant: "app", excluding: 2, since: 0).count == 1, "a peer's record is readable")

        // 1 stops (its lock released): 2 takes it over; 3, looking next, finds nothing.
        first?.releaseBridgeInstance(1)
        first = nil
        let taken = try second.takeOverDeadBridges(instance: 2, tenants: ["app"], recordSince: 0, plan: Self.keepAll(2))
        #expect(taken.instances == [1])
        #expect(taken.byTenant["app"]?.journal.map(\.seq) == [1, 2])
        #expect(taken.byTenant["app"]?.record.map(\.serial) == [-8])
        let again = try third.takeOverDeadBridges(instance: 3, tenants: ["app"], recordSince: 0, plan: Self.keepAll(3))
        #expect(again.instances.isEmpty, "taken once")
        #expect(try third.journalLeftover(tenant: "app", excluding: 3).rows.map(\.instance) == [2, 2], "now 2's")
        #expect(try third.peerResendRows(tenant: "app", excluding: 3, since: 0).map(\.instance) == [2])
    }
}
