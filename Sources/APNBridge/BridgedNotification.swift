package import APNWire

/// One notification a binary client sent, as the bridge forwards it upstream.
///
/// The identifier and command say how to answer the client; the token, payload, expiry
/// and priority are what is delivered, and they alone (``resendKey``) say whether a later
/// notification is a resend of this one.
package struct BridgedNotification: Hashable, Sendable {
    /// The format it came in: command 0 cannot be answered with an error response.
    package var command: Command
    /// The binary identifier, 0 for command 0 (it has none). Only used to answer the
    /// client; never a key, because clients may repeat identifiers.
    package var identifier: UInt32
    /// The device token.
    package var token: [UInt8]
    /// The payload bytes, as sent.
    package var payload: [UInt8]
    /// The expiry in UNIX seconds; `nil` when the format or frame carried none.
    package var expiry: UInt32?
    /// The priority; `nil` when the frame carried none.
    package var priority: UInt8?

    /// A notification from its parts.
    package init(
        command: Command, identifier: UInt32, token: [UInt8], payload: [UInt8], expiry: UInt32?, priority: UInt8?
    ) {
        (self.command, self.identifier, self.token) = (command, identifier, token)
        (self.payload, self.expiry, self.priority) = (payload, expiry, priority)
    }

    /// The notification `GatewayDecoder` handed over in place (a missing identifier
    /// becomes 0), its token and payload copied out of the decoder's buffer: no
    /// ``DecodedNotification`` made, copied from and destroyed on the way.
    package init(_ view: DecodedNotificationView) {
        self.init(
            command: view.command, identifier: view.identifier ?? 0, token: Array(view.token),
            payload: Array(view.payload), expiry: view.expiry, priority: view.priority)
    }

    /// The notification `GatewayDecoder` decoded (a missing identifier becomes 0).
    package init(_ decoded: DecodedNotification) {
        self.init(
            command: decoded.command, identifier: decoded.identifier ?? 0, token: decoded.token,
            payload: decoded.payload, expiry: decoded.expiry, priority: decoded.priority)
    }

    /// What identifies a resend of this notification: what is delivered, so everything but
    /// identifier and command, with the defaults filled in as forwarded (no expiry is 0, no
    /// priority is 10): a client may resend a command-2 frame as command 1, which has no
    /// priority (PyAPNs does), or a command-1 notification as a frame without the items.
    package var resendKey: ResendKey {
        ResendKey(token: token, payload: payload, expiry: expiry ?? 0, priority: priority ?? 10)
    }
}

/// The content of a notification, by which the ``ResendRecord`` recognises a resend:
/// token, payload bytes, expiry and priority, as delivered upstream.
///
/// Not the identifier: a client may renumber what it resends after an error response, and
/// identifiers repeat. Not the command either: it says how the
/// client wants answers, not what is delivered.
package struct ResendKey: Hashable, Sendable {
    /// The device token.
    package var token: [UInt8]
    /// The payload bytes.
    package var payload: [UInt8]
    /// The expiry in UNIX seconds; 0 (deliver once or never) when none was sent.
    package var expiry: UInt32
    /// The priority; 10 when none was sent.
    package var priority: UInt8

    /// A key from its parts.
    package init(token: [UInt8], payload: [UInt8], expiry: UInt32, priority: UInt8) {
        self.token = token
        self.payload = payload
        self.expiry = expiry
        self.priority = priority
    }

    /// The bytes in one pass each (``BytesKey``): every notification a reconnected client
    /// resends is looked up, and the synthesized hashing took a call per byte.
    package func hash(into hasher: inout Hasher) {
        BytesKey.hash(token, into: &hasher)
        BytesKey.hash(payload, into: &hasher)
        hasher.combine(expiry)
        hasher.combine(priority)
    }
}
