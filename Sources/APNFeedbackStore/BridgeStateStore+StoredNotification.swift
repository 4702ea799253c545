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
package protocol HoldsStoredNotification {
    /// The notification the row keeps.
    var notification: BridgeStateStore.StoredNotification { get set }
}

extension HoldsStoredNotification {
    // Each field by name: through a `@dynamicMemberLookup` key-path subscript, every read in
    // another module projected a key path and instantiated generic metadata at run time,
    // ~20,000 instructions a row (callgrind, a takeover of 100,000 record rows, #45), and
    // the journal and record writers read five fields a notification.

    /// Whose client sent it.
    @inlinable package var tenant: String {
        get { notification.tenant }
        set { notification.tenant = newValue }
    }

    /// The device token.
    @inlinable package var token: [UInt8] {
        get { notification.token }
        set { notification.token = newValue }
    }

    /// The payload bytes.
    @inlinable package var payload: [UInt8] {
        get { notification.payload }
        set { notification.payload = newValue }
    }

    /// The expiry in UNIX seconds.
    @inlinable package var expiry: UInt32 {
        get { notification.expiry }
        set { notification.expiry = newValue }
    }

    /// The priority.
    @inlinable package var priority: UInt8 {
        get { notification.priority }
        set { notification.priority = newValue }
    }
}
