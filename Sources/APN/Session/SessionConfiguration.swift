package import APNWire

/// The knobs of one gateway session; `Connection.Options` maps node-apn's options here.
package struct SessionConfiguration: Sendable {
    /// The format frames are written in (command 1 by default).
    package var command: Command = .enhanced
    /// How many written notifications are kept for resending, the oldest evicted first
    /// (node-apn's `cacheLength`). nil: none is evicted; each keeps what it needs to be
    /// resent until its outcome is known, within `cacheMemoryLimit`.
    package var cacheLength: Int?
    /// With `cacheLength` nil, the memory written notifications may hold for resending
    /// (see ``GatewaySession/cacheCharge(tokenCount:payloadCount:)``). Once it is reached
    /// nothing more is encoded until outcomes free room, and a confirmation marker is
    /// written so that they come sooner than the grace window.
    package var cacheMemoryLimit = 96 << 20
    /// Write a confirmation marker after every this many notifications on a connection
    /// (rolling confirmation); nil: only when the cache is full.
    package var confirmationInterval: Int?
    /// The driver reports, with `acknowledged(bytes:now:)`, how much of what the socket
    /// took the peer's TCP acknowledged; the grace window then accepts only that.
    package var tracksAcknowledgements = false
    /// Grow `cacheLength` by twice the shortfall on a cache miss (node-apn's default).
    package var autoAdjustCache = true
    /// The most `autoAdjustCache` may grow the cache to (node-apn had no cap: #191).
    package var maxCacheLength = 100_000
    /// Consecutive failed connection attempts tolerated after the first; 0 = unlimited.
    package var connectionRetryLimit = 10
    /// `false`: the first failed attempt terminates (514), whatever `connectionRetryLimit`.
    package var retriesConnections = true
    /// The first reconnect delay; each further failure doubles it.
    package var initialBackoff: Duration = .seconds(1)
    /// The longest reconnect delay (node-apn reached 512 s with its default retry limit).
    package var maxBackoff: Duration = .seconds(512)
    /// Abort a connection attempt that has not connected within this; nil = never.
    package var connectTimeout: Duration? = .seconds(10)
    /// Close a connection idle this long (node-apn's `connectionTimeout`); nil = never.
    package var idleTimeout: Duration? = .seconds(3600)
    /// Give a connection up as failed (a failed attempt: backoff, retry limit) when bytes
    /// wait to be written or acknowledged and none was taken or acknowledged for this long;
    /// nil = only `idleTimeout` bounds such a stall.
    package var writeStallTimeout: Duration? = .seconds(30)
    /// How long after a write an error response can still arrive: written notifications are
    /// accepted once it passes, and `shutdown` waits this long before closing.
    package var graceWindow: Duration = .milliseconds(2500)
    /// Resend what follows a rejected notification (node-apn's `buffersNotifications`).
    package var buffersNotifications = true
    /// What happens to notifications written and not yet confirmed at a silent close.
    package var silentClosePolicy: SilentClosePolicy = .resend
    /// Frames are encoded ahead of the socket up to this many bytes.
    package var writeBatchBytes = 64 * 1024
    /// The first identifier on each connection (1). A test hook for wrap-around.
    package var firstIdentifier: UInt32 = 1
    /// Emit a `transmitted` event per notification written. Off unless the connection has a
    /// `transmitted` listener: it is one more report per notification.
    package var emitsTransmitted = false
    /// A connection that ends without an error response sooner than this after it was
    /// established counts as a failed connection attempt (backoff, retry limit) rather than
    /// a lost connection: a gateway that refuses the certificate after the handshake (TLS
    /// 1.3, or a certificate for the other environment) would otherwise be reconnected to at
    /// once, forever. node-apn waited 100 ms after connecting for the same reason. Zero
    /// turns the check off.
    package var settleWindow: Duration = .zero
    /// After rejections, write at most a window of notifications per gateway answer time
    /// (see ``AnswerPacing``), so that what a rejection makes the gateway discard stays
    /// about what the connection carried.
    package var pacesAfterRejections = true

    package init() {}
}
