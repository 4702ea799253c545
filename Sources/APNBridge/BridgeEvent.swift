public import APNWire

/// Something an operator wants to see in the bridge's log (`apn bridge` writes each as a
/// JSON line on standard error): connections, the error responses written, the upstream
/// failing and recovering, the feedback store failing. Never a token, a payload, a key or
/// a passphrase: what identifies a client is its tenant's name and a connection number.
///
/// Events are raised outside the bridge's locks, on whichever thread saw the change (a
/// connection's, a provider's I/O thread, the store writer): a handler must be quick and
/// must not call back into the bridge.
public enum BridgeEvent: Sendable, Hashable {
    /// Why a gateway connection was closed at once.
    public enum Refusal: String, Sendable, Hashable {
        /// No certificate of a tenant (verified against the client CAs, but named by none).
        case unknownClient = "unknown_client"
        /// The system gave no descriptor for the connection's wake-up pipe.
        case noResources = "no_resources"
        /// The bridge is stopping.
        case stopping
    }

    /// A client of `tenant` connected to the gateway port; `connection` numbers its
    /// connections from 0.
    case connectionOpened(tenant: String, connection: UInt64)
    /// A new connection of `tenant` is held, reading nothing, for `for`: its upstream is
    /// backing off after a failure (``UpstreamBackoff``).
    case connectionHeld(tenant: String, connection: UInt64, for: Duration)
    /// A gateway connection was closed at once; `tenant` when its certificate named one.
    case connectionRefused(tenant: String?, Refusal)
    /// A client connection's socket closed.
    case connectionClosed(tenant: String, connection: UInt64)
    /// An error response was decided for a connection: `status` naming `identifier` (the
    /// refused notification, or for status 10 the last one whose acceptance is known).
    case errorResponse(tenant: String, connection: UInt64, status: StatusCode, identifier: UInt32)
    /// After the error response for a refusal on `connection`, what the client had
    /// written past the refused notification was read, forwarded and remembered:
    /// `notifications` of them (the refusal distance).
    case refusalDistance(tenant: String, connection: UInt64, notifications: Int)
    /// The tenant's upstream failed (its credentials or topic refused, or Apple
    /// unavailable after retries): `reason` is Apple's reason or the provider's error;
    /// new connections are refused for `backoff`.
    case upstreamFailed(tenant: String, reason: String, backoff: Duration)
    /// The tenant's upstream answered again after failing.
    case upstreamRecovered(tenant: String)
    /// The token store refused to keep feedback tuples; `waiting` are kept in memory and
    /// written again.
    case feedbackStoreFailed(error: String, waiting: Int)
    /// The token store takes feedback tuples again.
    case feedbackStoreRecovered
    /// A client of `tenant` was told where to resend from before the resend record's
    /// latest changes were in the store (it kept failing): a restart now would forward
    /// some of its resends twice.
    case recordNotWritten(tenant: String)
    /// `instances` bridges on the same store had died; their state was taken over, and
    /// `recovered` notifications they read and never wrote are forwarded by this one.
    case bridgesTakenOver(instances: Int, recovered: Int)
    /// The store's PostgreSQL session ended (a server restart or failover, a network loss,
    /// `pg_terminate_backend`) and with it this bridge's lock: another bridge may take its
    /// state over, and nothing it reads can be journaled any more. Stop the bridge
    /// (`apn bridge` does, and exits 1); a new start takes over what it left. `error` is the
    /// store's last failure.
    case storeLockLost(error: String)
}
