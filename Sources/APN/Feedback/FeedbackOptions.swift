public import Dispatch
public import Foundation

extension Feedback {
    /// How a ``Feedback`` poller connects and delivers, with node-apn 1.x's names and
    /// defaults.
    public struct Options: Sendable {
        /// The client certificate (PEM or DER); default `cert.pem`, as node-apn.
        public var cert: CredentialSource? = "cert.pem"
        /// Its private key (PEM or DER); default `key.pem`.
        public var key: CredentialSource? = "key.pem"
        /// Certificates the service's certificate must chain to; `nil`: the system store.
        public var ca: [CredentialSource]?
        /// A PKCS#12 bundle used instead of ``cert`` and ``key``.
        public var pfx: CredentialSource?
        /// The key's passphrase or the PKCS#12 password.
        public var passphrase: String?
        /// Check the certificate carries Apple's push extension for the environment.
        public var checksPushEnvironment = true
        /// The feedback host; `nil`: `feedback.push.apple.com` when ``production``, else
        /// `feedback.sandbox.push.apple.com`.
        public var address: String?
        /// The feedback port (2196).
        public var port: UInt16 = 2196
        /// Use the production service (and check for the production extension).
        public var production = false
        /// Verify the service's certificate and host name (on by default).
        public var rejectUnauthorized = true
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
        /// The clock the interval runs on; tests pass a ``ManualClock``.
        public var clock: ConnectionClock = .continuous
        /// Receives debug messages (e.g. a partial tuple discarded at close); `nil`: none.
        public var debugLog: (@Sendable (String) -> Void)?

        /// Options with every default.
        public init() {}

        /// The host connected to.
        public var host: String {
            address ?? (production ? Self.productionHost : Self.sandboxHost)
        }

        /// Apple's production feedback host.
        public static let productionHost = "feedback.push.apple.com"
        /// Apple's sandbox feedback host.
        public static let sandboxHost = "feedback.sandbox.push.apple.com"

        /// Whether the production environment is in use: the host decides when it is one of
        /// Apple's, else ``production`` (the rule of ``Connection/Options/isProduction``).
        public var isProduction: Bool {
            switch host {
            case Self.productionHost: true
            case Self.sandboxHost: false
            default: production
            }
        }

        var credentials: ClientCredentialOptions {
            ClientCredentialOptions(
                cert: cert, key: key, ca: ca, pfx: pfx, passphrase: passphrase,
                checksPushEnvironment: checksPushEnvironment, isProduction: isProduction,
                rejectUnauthorized: rejectUnauthorized)
        }
    }

    /// One device the feedback service reported: it stopped accepting notifications at
    /// ``time``. Drop its token only if it was not registered again after that.
    public struct Entry: Sendable, Hashable, CustomStringConvertible {
        /// When the device stopped accepting notifications, as UNIX seconds.
        public let unixTime: UInt32
        /// The device (any token length the service sent).
        public let device: Device

        /// Creates an entry.
        public init(unixTime: UInt32, device: Device) {
            self.unixTime = unixTime
            self.device = device
        }

        /// ``unixTime`` as a date.
        public var time: Date { Date(timeIntervalSince1970: TimeInterval(unixTime)) }

        /// `1700000000 a1b2…`.
        public var description: String { "\(unixTime) \(device)" }
    }
}
