/// The bridge's resend record, kept in the store (#41): what a bridge forwarded after the
/// point its client was told to resend from, with each one's answer, so that a restarted
/// bridge — or another one on the same PostgreSQL database — answers the client's resends
/// from it instead of forwarding them twice. The bridge keeps the record in memory and
/// writes its changes here (``applyResendChanges(_:)``); a bridge that starts, or
/// survives one that died, takes a dead bridge's rows over
/// (``takeOverDeadBridges(instance:tenants:recordSince:plan:)``), and reads a live one's
/// (``peerResendRows(tenant:excluding:since:)``).
///
/// A row's meaning is the bridge's (`ResendRecord` in APNBridge): the store keeps the
/// columns and their order and does not interpret the answer code.
extension BridgeStateStore {
    /// One entry of a bridge's resend record.
    package struct ResendRow: Hashable, Sendable, HoldsStoredNotification {
        /// The process that recorded it (random per start) …
        package var instance: Int64
        /// … and the entry's serial there: together the row's key.
        package var serial: Int64
        /// The tenant whose connections may take it, and the content a resend is recognised
        /// by (read as the row's own fields).
        package var notification: StoredNotification
        /// The recorded answer, coded by the bridge.
        package var answer: Int64
        /// When it was recorded, UNIX milliseconds.
        package var recordedAt: Int64

        /// A row from its columns.
        package init(
            instance: Int64, serial: Int64, tenant: String, token: [UInt8], payload: [UInt8], expiry: UInt32,
            priority: UInt8, answer: Int64, recordedAt: Int64
        ) {
            self.instance = instance
            self.serial = serial
            notification = StoredNotification(tenant: tenant, token: token, payload: payload, expiry: expiry, priority: priority)
            self.answer = answer
            self.recordedAt = recordedAt
        }
    }

    /// One change to the record, in the order the bridge made it.
    package enum ResendChange: Hashable, Sendable {
        /// An entry recorded.
        case insert(ResendRow)
        /// The answer of the entry (instance, serial) arrived.
        case answer(instance: Int64, serial: Int64, answer: Int64)
        /// The entry (instance, serial) was taken by a resend, or dropped.
        case delete(instance: Int64, serial: Int64)
    }

    /// Applies `changes` in order, in one transaction: all of them or, when it throws, none.
    /// An answer or a delete for a row not held changes nothing.
    ///
    /// - Throws: ``StoreError`` — `invalidValue` for an empty tenant, `locked`, `sqlite`.
    package func applyResendChanges(_ changes: [ResendChange]) throws(StoreError) {
        guard !changes.isEmpty else { return }
        try backend.applyResendChanges(changes)
    }
}
