package import APNSupport
public import Dispatch
import Foundation

extension Feedback {
    /// How a ``Feedback`` poller connects and delivers, with node-apn 1.x's names and
    /// defaults.
    public struct Options: ServiceAccessOptions, Sendable {
        /// The credentials and the feedback host: ``ServiceAccess/cert``,
        /// ``ServiceAccess/key``, ``ServiceAccess/ca``, ``ServiceAccess/pfx``,
        /// ``ServiceAccess/passphrase``, ``ServiceAccess/checksPushEnvironment``,
        /// ``ServiceAccess/address``, ``ServiceAccess/port`` (2196),
        /// ``ServiceAccess/production`` and ``ServiceAccess/rejectUnauthorized``, each read
        /// and set as these options' own (`options.cert`). `nil` ``ServiceAccess/address``:
        /// `feedback.push.apple.com` when production, else `feedback.sandbox.push.apple.com`;
        /// the host decides the environment when it is one of Apple's, as for
        /// ``Connection/Options``.
        public var access = ServiceAccess(port: 2196, productionHost: Self.productionHost, sandboxHost: Self.sandboxHost)
        /// Poll when the poller is created and then this often, as node-apn; `nil` or zero
        /// (node-apn's 0): nothing until ``Feedback/start()``, which then polls once each
        /// call. Default one hour.
        public var interval: Duration? = .seconds(3600)
        /// node-apn's `feedback` option: called with every entry (``Callback/each(_:)``) or
        /// batch (``Callback/batch(_:)``) the polls read, before the listeners; `nil`: none.
        /// In place before polling starts, unlike a listener added after creation.
        public var feedback: Callback?
        /// Deliver entries in batches (the default) rather than one `feedback` event each.
        public var batchFeedback = true
        /// The most entries per batch; 0: one batch per connection. The final batch is
        /// always delivered when the service closes, even when empty.
        public var batchSize = 0
        /// Give up a connection attempt (TCP and TLS) after this long; zero: off, as
        /// node-apn (the system's TCP timeout still bounds the TCP connect).
        public var connectTimeout: Duration = .seconds(10)
        /// Give up on a connection that sends nothing for this long; zero: off.
        public var readTimeout: Duration = .seconds(60)
        /// The longest token accepted; a longer length field ends the read with an error.
        public var maxTokenLength = 100
        /// Where events and entries are delivered, in order. `nil`: a private serial queue.
        public var callbackQueue: DispatchQueue?
        /// The clock the interval and the connect and read timeouts run on; tests pass a
        /// ``ManualClock``.
        public var clock: ConnectionClock = .continuous

        /// How the client starts its threads (its I/O thread, and a thread per connect
        /// attempt): POSIX threads, whose failure is seen. Tests give one that fails.
        package var threadStarter: ThreadStarter = .system
        /// Where the poller logs (label `swift-apn.feedback`): a partial tuple discarded
        /// (debug), each visit's entries (info), a failed visit (notice), unusable
        /// credentials (error), peer verification off (warning). Default: warnings and
        /// above on standard error.
        public var logHandler: any APNLogHandler = StandardErrorLogHandler()

        /// The poller's log: ``logHandler`` under its label.
        var log: ComponentLog { ComponentLog(logHandler, label: ComponentLog.Label.feedback) }

        /// Options with every default.
        public init() {}

        /// Apple's production feedback host.
        public static let productionHost = "feedback.push.apple.com"
        /// Apple's sandbox feedback host.
        public static let sandboxHost = "feedback.sandbox.push.apple.com"
    }

    /// One device the feedback service reported (``FeedbackEntry``, in `APNCore`, where the
    /// token store finds it without the transports).
    public typealias Entry = FeedbackEntry
}
