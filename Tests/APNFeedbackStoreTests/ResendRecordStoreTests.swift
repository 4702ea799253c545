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
