package import APNSupport
public import APNWire
public import Dispatch

extension Connection {
    /// How a ``Connection`` connects and behaves, with node-apn 1.x's option names and
    /// defaults. Every property has a default; set what differs.
    ///
    /// ```swift
    /// var options = Connection.Options()
    /// options.cert = "cert.pem"
    /// options.key = "key.pem"
    /// options.production = true
    /// ```
    public struct Options: ServiceAccessOptions, Sendable {
        // MARK: Credentials and where

        /// The credentials and the gateway host: ``ServiceAccess/cert``,
        /// ``ServiceAccess/key``, ``ServiceAccess/ca``, ``ServiceAccess/pfx``,
        /// ``ServiceAccess/passphrase``, ``ServiceAccess/checksPushEnvironment``,
        /// ``ServiceAccess/address``, ``ServiceAccess/port`` (2195),
        /// ``ServiceAccess/production`` and ``ServiceAccess/rejectUnauthorized``, each read
        /// and set as these options' own (`options.cert`). `nil` ``ServiceAccess/address``:
        /// `gateway.push.apple.com` when production, else `gateway.sandbox.push.apple.com`
        /// (node-apn 1.5+); when the address names one of Apple's hosts, the host decides the
        /// environment, as in node-apn.
        public var access = ServiceAccess(port: 2195, productionHost: Self.productionHost, sandboxHost: Self.sandboxHost)

        // MARK: Format

        /// The wire format: command 1 (enhanced) by default.
        public var format: Command = .enhanced
        /// Raises the command 2 payload limit from 2048 to 4096 bytes (node-apn 1.7.3).
        public var voip = false

        // MARK: Resend cache

        /// `nil` (the default): every written notification is kept, ready to be resent,
        /// until its outcome is known — nothing is evicted, however late an error response
        /// comes back — within ``cacheMemoryLimit``. A number: node-apn's count-bounded
        /// FIFO, exactly: that many written notifications are kept per socket, older ones
        /// are evicted, and an error response naming an evicted one gives `cacheTooSmall`,
        /// `errorCallback(255, nil)` and unknown fates (``autoAdjustCache`` applies).
        public var cacheLength: Int?
        /// With ``cacheLength`` `nil`, the memory written notifications may hold for
        /// resending, in bytes, shared among the ``maxConnections`` sockets: 96 MiB, about a
        /// million in flight when a notification's payload is shared among its devices
        /// (88 bytes each for a 32-byte token), fewer with a payload each. When a socket
        /// reaches its share it stops writing (``ConnectionEvent/cacheFull(limit:)``, once)
        /// and writes a confirmation marker, whose answer settles everything before it;
        /// nothing is ever evicted. Pushing never blocks: what waits stays queued.
        public var cacheMemoryLimit = 96 << 20
        /// Grow ``cacheLength`` by twice the shortfall when an error names a notification
        /// older than the cache (node-apn's default: on). Only with ``cacheLength`` set.
        public var autoAdjustCache = true
        /// The most ``autoAdjustCache`` may grow the cache to (node-apn had no cap).
        public var maxCacheLength = 100_000
        /// Rolling confirmation: after every this many notifications a socket writes a
        /// confirmation marker and, once the gateway has answered it (settling them all),
        /// reconnects — so at most this many are ever unconfirmed when the gateway drops the
        /// connection without a word (possibly duplicated when resent, or of unknown fate).
        /// Costs a round trip and a TLS handshake per marker; `nil` (the default): off.
        /// Not with ``Command/simple``, which has no identifiers to confirm with.
        public var confirmationInterval: Int?
        /// Pace writing after rejections (on by default): once error responses have shown
        /// how long the gateway takes to answer and how many notifications a connection
        /// carries before one is rejected, a socket writes at most twice that many per
        /// answer time, doubling with each answer time it lives on. A rejection makes the
        /// gateway discard everything written after the rejected notification; unpaced, a
        /// fast client has written `rate × round trip` of them by then (20,000 at 2 M/s and
        /// 10 ms), all sent again. Nothing is paced before the first rejection.
        public var pacesAfterRejections = true

        // MARK: Sockets

        /// The most sockets opened to the gateway; each has its own identifiers and cache.
        public var maxConnections = 1
        /// Sockets kept open once the first notification was pushed (reopened after an idle
        /// close or a gateway disconnect), as node-apn 1.7.5+. At most ``maxConnections``.
        public var minConnections = 1
        /// Abort a connection attempt (TCP and TLS) not finished in this time; `nil` or zero
        /// (node-apn's 0): never.
        public var connectTimeout: Duration? = .seconds(10)
        /// Close a socket idle this long (node-apn's `connectionTimeout`, 1 h); `nil` or zero
        /// (node-apn's 0): never.
        public var connectionTimeout: Duration? = .seconds(3600)
        /// Consecutive failed connection attempts tolerated after the first before the
        /// connection terminates with 514; 0 = unlimited (node-apn's meaning, so "no retry"
        /// is said with ``retriesConnections``).
        public var connectionRetryLimit = 10
        /// `false`: the first failed connection attempt terminates the connection with 514
        /// (no retry at all, which a ``connectionRetryLimit`` of 0 cannot say). On by default.
        public var retriesConnections = true
        /// The first reconnect delay; it doubles after each further failure (1 s, 2 s, 4 s …).
        public var initialBackoff: Duration = .seconds(1)
        /// The longest reconnect delay.
        public var maxBackoff: Duration = .seconds(512)
        /// A socket the gateway closes this soon after the handshake, without an error
        /// response, counts as a failed attempt (backoff, retry limit) rather than a lost
        /// connection; node-apn waited 100 ms for the same reason (a refused or
        /// wrong-environment certificate). Zero turns it off.
        public var settleWindow: Duration = .milliseconds(100)
        /// Give a connection up as failed when bytes wait to be written or acknowledged and
        /// the gateway has taken or acknowledged none of them for this long: a gateway that
        /// stopped reading. What was written then follows ``silentClosePolicy``, and the
        /// attempt counts against ``connectionRetryLimit``, so a send always finishes. 30 s by
        /// default (node-apn had no such bound: a stalled socket waited for
        /// ``connectionTimeout``); `nil` or zero: only ``connectionTimeout`` bounds it.
        public var writeStallTimeout: Duration? = .seconds(30)

        // MARK: Sending

        /// Resend the notifications that followed a rejected one (node-apn's default: on).
        public var buffersNotifications = true
        /// Encode up to 256 KiB of frames ahead of the socket instead of 16 KiB: more frames
        /// per write, for bulk sending. node-apn's `fastMode` emptied its buffer in a tight
        /// loop for the same purpose.
        public var fastMode = false
        /// Set TCP_NODELAY. Off by default, as node-apn (Nagle on, "as recommended by
        /// Apple"): frames are coalesced into full segments.
        public var disableNagle = false
        /// How long after the last write an error response may still arrive: written
        /// notifications are accepted once it passes, and ``Connection/shutdown()`` waits
        /// this long before closing (node-apn: 2.5 s).
        public var shutdownGraceWindow: Duration = .milliseconds(2500)
        /// What happens to notifications written and not yet confirmed when the gateway
        /// closes without an error response: resent once and marked possibly duplicated
        /// (the default: none is lost), or reported of unknown fate
        /// (``SilentClosePolicy/reportUnconfirmed``).
        public var silentClosePolicy: SilentClosePolicy = .resend

        // MARK: Callbacks

        /// node-apn's `errorCallback(errorCode, notification, device)`; a notification's own
        /// ``Notification/errorCallback`` takes precedence.
        public var errorCallback: ErrorCallback?
        /// Where callbacks, event listeners and outcome handlers run, one at a time and in
        /// order (a concurrent queue is used as the target of a private serial queue).
        /// `nil`: a private serial queue. Never the I/O thread.
        public var callbackQueue: DispatchQueue?
        /// The clock timers run on; tests pass a ``ManualClock`` to drive backoff, grace
        /// windows and idle timeouts.
        public var clock: ConnectionClock = .continuous

        /// How the client starts its threads (its I/O thread, and a thread per connect
        /// attempt): POSIX threads, whose failure is seen. Tests give one that fails.
        package var threadStarter: ThreadStarter = .system
        /// Where the connection logs (label `swift-apn.connection`): sockets opened and
        /// closed (debug), failed attempts and lost connections (notice), termination
        /// (error), peer verification off (warning). Default: warnings and above on
        /// standard error, which is only the verification warning.
        public var logHandler: any APNLogHandler = StandardErrorLogHandler()

        /// Options with every default.
        public init() {}

        /// The connection's log: ``logHandler`` under its label.
        var log: ComponentLog { ComponentLog(logHandler, label: ComponentLog.Label.connection) }

        /// The largest payload the format (and ``voip``) allows, in bytes.
        public var payloadLimit: Int {
            Notification.payloadLimit(for: format, voip: voip)
        }

        /// Apple's production gateway host.
        public static let productionHost = "gateway.push.apple.com"
        /// Apple's sandbox gateway host.
        public static let sandboxHost = "gateway.sandbox.push.apple.com"
    }

    /// node-apn's `errorCallback(errorCode, notification, device)`: a status code (Apple's,
    /// or 512–515) or a connection error, with the notification and device concerned (`nil`
    /// where node-apn passed null: a rejection naming a notification no longer cached).
    public typealias ErrorCallback = @Sendable (ErrorCallbackCode, Notification?, Device?) -> Void
}
