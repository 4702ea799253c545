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
