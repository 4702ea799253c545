extension BridgeStateStore {
    /// A notification as the bridge's rows keep it (#41): whose client sent it and what is
    /// forwarded — token, payload bytes, expiry, priority. A journal row and a resend record
    /// row each hold one (``JournalRow``, ``ResendRow``), and read its fields as their own.
    package struct StoredNotification: Hashable, Sendable {
        /// Whose client sent it.
        package var tenant: String
        package var token: [UInt8]
        package var payload: [UInt8]
        package var expiry: UInt32
        package var priority: UInt8

        /// A notification from its columns.
        package init(tenant: String, token: [UInt8], payload: [UInt8], expiry: UInt32, priority: UInt8) {
            self.tenant = tenant
            self.token = token
            self.payload = payload
            self.expiry = expiry
            self.priority = priority
        }
    }
}

/// A bridge row holding a ``BridgeStateStore/StoredNotification``, whose fields it reads and
/// writes as its own (`row.token`, `row.tenant = …`).
@dynamicMemberLookup
package protocol HoldsStoredNotification {
    /// The notification the row keeps.
    var notification: BridgeStateStore.StoredNotification { get set }
}

extension HoldsStoredNotification {
    /// The notification's fields, as the row's own.
    package subscript<Value>(dynamicMember field: WritableKeyPath<BridgeStateStore.StoredNotification, Value>) -> Value {
        get { notification[keyPath: field] }
        set { notification[keyPath: field] = newValue }
    }
}
