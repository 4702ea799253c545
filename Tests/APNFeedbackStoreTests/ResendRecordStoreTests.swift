import APN
import APNFeedbackStore
import Testing

/// #41: the bridge's resend record in the store, on both backends: changes applied in
/// order in one transaction, rows read back oldest first per tenant, and taken over by a
/// starting bridge; the store does not interpret the answer code.
@Suite("Token store: the bridge's resend record")
struct ResendRecordStoreTests {
    typealias Tests = TokenStoreTests

    static func row(_ serial: Int64, tenant: String = "app", instance: Int64 = 1, at time: Int64, answer: Int64 = 0)
        -> TokenStore.ResendRow
    {
        TokenStore.ResendRow(
            instance: instance, serial: serial, tenant: tenant, token: Tests.device(Int(serial)).token,
            payload: Array(#"{"aps":{"alert":"n\#(serial)"}}"#.utf8), expiry: UInt32(serial), priority: 5,
            answer: answer, recordedAt: time)
    }

    @Test(arguments: StoreBackend.available)
    func changesAreAppliedInOrderAndRowsReadBackOldestFirst(_ backend: StoreBackend) throws {
        let folder = try Tests.Folder(backend)
        let store = try folder.store()
        try store.applyResendChanges([
            .insert(Self.row(2, at: 2_000, answer: 2)),
            .insert(Self.row(1, at: 1_000)),
            .insert(Self.row(3, at: 3_000)),
            .insert(Self.row(1, tenant: "other", instance: 2, at: 500)),
            .answer(instance: 1, serial: 2, answer: 65_544),
            .delete(instance: 1, serial: 3),
            .delete(instance: 9, serial: 9),
        ])
        let rows = try store.resendRows(tenant: "app", recordedSince: 0)
        #expect(rows == [Self.row(1, at: 1_000), Self.row(2, at: 2_000, answer: 65_544)])
        #expect(try store.resendRows(tenant: "app", recordedSince: 1_001) == [Self.row(2, at: 2_000, answer: 65_544)])
        #expect(try store.resendRows(tenant: "other", recordedSince: 0) == [Self.row(1, tenant: "other", instance: 2, at: 500)])
        // Another connection (another bridge, a restart) reads what was committed.
        #expect(try folder.store().resendRows(tenant: "app", recordedSince: 0).count == 2)
    }

    @Test(arguments: StoreBackend.available)
    func aStartingBridgeTakesTheRowsOverInOneTransaction(_ backend: StoreBackend) throws {
        let folder = try Tests.Folder(backend)
        let store = try folder.store()
        try store.applyResendChanges([.insert(Self.row(1, at: 1_000)), .insert(Self.row(2, at: 2_000))])
        try store.applyResendChanges([.insert(Self.row(1, tenant: "other", instance: 2, at: 1_000))])
        let taken = [Self.row(0, instance: 5, at: 2_000)]
        try store.replaceResendRows(tenant: "app", with: taken)
        #expect(try store.resendRows(tenant: "app", recordedSince: 0) == taken)
        #expect(try store.resendRows(tenant: "other", recordedSince: 0).count == 1, "another tenant's rows stay")
    }

    @Test(arguments: StoreBackend.available)
    func aFailedBatchChangesNothing(_ backend: StoreBackend) throws {
        let folder = try Tests.Folder(backend)
        let store = try folder.store()
        #expect(throws: StoreError.self) {
            try store.applyResendChanges([.insert(Self.row(1, at: 1_000)), .insert(Self.row(2, tenant: "", at: 1_000))])
        }
        #expect(try store.resendRows(tenant: "app", recordedSince: 0).isEmpty)
        #expect(throws: StoreError.self) { try store.resendRows(tenant: "", recordedSince: 0) }
    }
}
