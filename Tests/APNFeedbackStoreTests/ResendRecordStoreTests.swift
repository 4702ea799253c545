import APN
import APNFeedbackStore
import Testing

/// #41: the bridge's resend record in the store, on both backends: changes applied in
/// order in one transaction, read back by another bridge oldest first per tenant (taking
/// over is `BridgeInstancesStoreTests`'); the store does not interpret the answer code.
@Suite("Token store: the bridge's resend record")
struct ResendRecordStoreTests {
    typealias Tests = TokenStoreTests

    static func row(_ serial: Int64, tenant: String = "app", instance: Int64 = 1, at time: Int64, answer: Int64 = 0)
        -> BridgeStateStore.ResendRow
    {
        BridgeStateStore.ResendRow(
            instance: instance, serial: serial, tenant: tenant, token: Tests.device(Int(serial)).token,
            payload: Array(#"{"aps":{"alert":"n\#(serial)"}}"#.utf8), expiry: UInt32(serial), priority: 5,
            answer: answer, recordedAt: time)
    }

    @Test(arguments: StoreBackend.available)
    func changesAreAppliedInOrderAndRowsReadBackOldestFirst(_ backend: StoreBackend) throws {
        let folder = try Tests.Folder(backend)
        let store = try folder.bridgeState()
        try store.applyResendChanges([
            .insert(Self.row(2, at: 2_000, answer: 2)),
            .insert(Self.row(1, at: 1_000)),
            .insert(Self.row(3, at: 3_000)),
            .insert(Self.row(1, tenant: "other", instance: 2, at: 500)),
            .answer(instance: 1, serial: 2, answer: 65_544),
            .delete(instance: 1, serial: 3),
            .delete(instance: 9, serial: 9),
        ])
        let rows = try store.peerResendRows(tenant: "app", excluding: 0, since: 0)
        #expect(rows == [Self.row(1, at: 1_000), Self.row(2, at: 2_000, answer: 65_544)])
        #expect(try store.peerResendRows(tenant: "app", excluding: 0, since: 1_001) == [Self.row(2, at: 2_000, answer: 65_544)])
        #expect(try store.peerResendRows(tenant: "other", excluding: 0, since: 0) == [Self.row(1, tenant: "other", instance: 2, at: 500)])
        // Another connection (another bridge, a restart) reads what was committed, and a
        // bridge does not read its own rows as a peer's.
        #expect(try store.peerResendRows(tenant: "app", excluding: 1, since: 0).isEmpty)
        #expect(try folder.bridgeState().peerResendRows(tenant: "app", excluding: 0, since: 0).count == 2)
    }

    /// Runs of one kind go to the server as one statement each (PostgreSQL): a long batch
    /// (more rows than one statement carries), the same row inserted, answered or deleted
    /// twice in a row, and a row inserted again after its delete end as the changes one by
    /// one would leave them.
    @Test(arguments: StoreBackend.available)
    func aLongBatchWithRepeatsEndsAsTheChangesInOrder(_ backend: StoreBackend) throws {
        let folder = try Tests.Folder(backend)
        let store = try folder.bridgeState()
        var changes: [BridgeStateStore.ResendChange] = (1...25_000).map { .insert(Self.row(Int64($0), at: Int64($0))) }
        var model = Dictionary(uniqueKeysWithValues: (1...25_000).map { (Int64($0), Self.row(Int64($0), at: Int64($0))) })
        // The same row twice in one run: the second wins.
        changes += [.insert(Self.row(7, at: 7, answer: 2)), .insert(Self.row(7, at: 7, answer: 1))]
        model[7] = Self.row(7, at: 7, answer: 1)
        // Answers, one row twice in a row and one of another instance (no row).
        for serial in Int64(100)...Int64(20_099) {
            changes.append(.answer(instance: 1, serial: serial, answer: 65_544))
            model[serial] = Self.row(serial, at: serial, answer: 65_544)
        }
        changes += [
            .answer(instance: 1, serial: 8, answer: 2), .answer(instance: 1, serial: 8, answer: 1),
            .answer(instance: 9, serial: 9, answer: 2),
        ]
        model[8] = Self.row(8, at: 8, answer: 1)
        // Deletes, one twice, then one row back.
        for serial in Int64(20_000)...Int64(24_000) {
            changes.append(.delete(instance: 1, serial: serial))
            model[serial] = nil
        }
        changes += [.delete(instance: 1, serial: 20_000), .insert(Self.row(20_000, at: 20_000, answer: 2))]
        model[20_000] = Self.row(20_000, at: 20_000, answer: 2)
        try store.applyResendChanges(changes)
        let rows = try folder.bridgeState().peerResendRows(tenant: "app", excluding: 0, since: 0)
        #expect(rows.count == model.count)
        #expect(rows == model.keys.sorted().map { model[$0]! })
    }

    @Test(arguments: StoreBackend.available)
    func aFailedBatchChangesNothing(_ backend: StoreBackend) throws {
        let folder = try Tests.Folder(backend)
        let store = try folder.bridgeState()
        #expect(throws: StoreError.self) {
            try store.applyResendChanges([.insert(Self.row(1, at: 1_000)), .insert(Self.row(2, tenant: "", at: 1_000))])
        }
        #expect(try store.peerResendRows(tenant: "app", excluding: 0, since: 0).isEmpty)
        #expect(throws: StoreError.self) { try store.peerResendRows(tenant: "", excluding: 0, since: 0) }
    }
}
