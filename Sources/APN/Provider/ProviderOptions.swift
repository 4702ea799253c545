package import APNSupport
public import Dispatch
public import Foundation

extension Provider {
    /// How a ``Provider`` reaches Apple's HTTP/2 provider API and behaves. Every property
    /// has a default; set what differs.
    ///
    /// ```swift
    /// var options = Provider.Options()
    /// options.authentication = .token(keyID: "ABC123DEFG", teamID: "DEF123GHIJ", key: "AuthKey_ABC123DEFG.p8")
    /// options.topic = "com.example.app"
    /// options.production = true
    /// ```
    public struct Options: ServiceAccessOptions, Sendable {
        // MARK: Authentication

        /// Provider tokens (a `.p8` key), an existing token, or the client certificate
        /// below. Token authentication by default needs ``authentication`` set; the
        /// default is ``ProviderAuthentication/certificate``.
        public var authentication: ProviderAuthentication = .certificate

        // MARK: Credentials and where

        /// The client certificate, for certificate authentication, and the host:
        /// ``ServiceAccess/cert``, ``ServiceAccess/key``, ``ServiceAccess/pfx``,
        /// ``ServiceAccess/passphrase``, ``ServiceAccess/checksPushEnvironment``,
        /// ``ServiceAccess/ca``, ``ServiceAccess/address``, ``ServiceAccess/port`` (443;
        /// Apple also listens on 2197), ``ServiceAccess/production`` and
        /// ``ServiceAccess/rejectUnauthorized``, each read and set as these options' own
        /// (`options.production`). `nil` ``ServiceAccess/address``: `api.push.apple.com` when
        /// production, else `api.sandbox.push.apple.com`; ``ServiceAccess/production`` alone
        /// decides the environment. With token authentication the certificate is not used.
        public var access = ServiceAccess(
            port: 443, productionHost: Self.productionHost, sandboxHost: Self.sandboxHost, hostDecidesEnvironment: false)

        // MARK: Requests

        /// The `apns-topic` of notifications that set no ``Notification/topic``: the app's
        /// bundle id. Required with token authentication.
        public var topic: String?
        /// Connections opened at most (pushok's `setMaxConcurrentConnections`): another is
        /// opened when every open one has as many streams in flight as it may.
        public var maxConnections = 1
        /// Streams in flight per connection at most (pushok's `setNbConcurrentRequests`);
        /// the server's `SETTINGS_MAX_CONCURRENT_STREAMS` lowers it (Apple's starts at 1
        /// and rises to about 1,000 once the connection is authenticated).
        public var maxConcurrentStreams = 1_000
        /// How long Apple may take to answer a notification once it is written to a
        /// connection; past it the result is ``ProviderError/Code/timedOut`` (may have been
        /// delivered: it is not sent again). Time waiting in the provider's own queue for a
        /// stream does not count: a large send to a slow server is not failed unsent. A
        /// connection that answers nothing for this long while streams wait is given up as
        /// hung, and counts as a failed attempt (``connectionRetryLimit``).
        public var requestTimeout: Duration = .seconds(30)
        /// How many times a notification is sent again after 429 or a 5xx answer, with a
        /// backoff. A stream the server refused unprocessed (REFUSED_STREAM, or above a
        /// GOAWAY's last stream id) is sent again at once, on any connection with room, and
        /// does not count: nothing was answered (at most 100 refusals).
        public var retryLimit = 3
        /// The wait before the first retry after a 429; it doubles each retry.
        public var initialBackoff: Duration = .milliseconds(250)
        /// The wait before the first retry after a 5xx answer (500 InternalServerError, 503
        /// ServiceUnavailable or Shutdown): longer than after a 429, since Apple asks providers
        /// to back off when its servers fail; it doubles each retry, up to ``maxBackoff``.
        public var serverErrorBackoff: Duration = .seconds(1)
        /// The longest wait between retries, and between connection attempts.
        public var maxBackoff: Duration = .seconds(8)

        // MARK: Connections

        /// The HTTP proxy connections go through (`CONNECT`, then TLS with Apple end to
        /// end); `nil`, the default: straight to ``ServiceAccess/address``. Never taken from
        /// the environment by itself: `options.proxy = try HTTPProxy.fromEnvironment(for:
        /// options.host)` asks for `https_proxy` and `no_proxy`. A proxy that refuses the
        /// tunnel fails the attempt as a refused connection would
        /// (``ProviderError/Code/connectionFailed``, the proxy's status line in the message);
        /// ``connectTimeout`` bounds the proxy's answer too.
        public var proxy: HTTPProxy?
        /// The bound on the TCP connect and the TLS handshake together, on ``clock`` (name
        /// resolution is the system's).
        public var connectTimeout: Duration = .seconds(10)
        /// Consecutive failed connection attempts (refused, or a handshake that failed) after
        /// which the notifications waiting for a connection fail with
        /// ``ProviderError/Code/connectionFailed`` (later ones try again). A connection that
        /// closes or sends GOAWAY before answering anything also counts, for the backoff
        /// before the next attempt; the first answer on a connection clears the count.
        public var connectionRetryLimit = 3
        /// A PING on a connection idle this long keeps it open through NATs and proves the
        /// server alive; `nil` sends none.
        public var pingInterval: Duration? = .seconds(60)
        /// A connection whose PING goes unanswered this long is closed, as is one whose
        /// server reads none of our bytes for this long. A connection with requests
        /// waiting for answers and nothing received for this long is PINGed at once
        /// (without waiting for `pingInterval`), so a hung server is given up after twice
        /// this: what it held fails as maybe delivered, the rest go to a new connection.
        public var pingTimeout: Duration = .seconds(10)

        // MARK: Provider tokens

        /// How old a provider token gets before a new one is signed: 50 minutes by default,
        /// kept between Apple's 20 (it refuses more frequent updates with
        /// `TooManyProviderTokenUpdates`) and 60 (it refuses older tokens with
        /// `ExpiredProviderToken`).
        public var tokenRefreshInterval: Duration = .seconds(50 * 60)
        /// The wall clock a provider token's `iat` is read from (tests move it).
        public var currentDate: @Sendable () -> Date = { Date() }

        // MARK: Unregistered tokens

        /// Where every 410 (`Unregistered`, `ExpiredToken`) answered to ``Provider/send(_:to:)-(_,Device)``
        /// goes, with Apple's timestamp: a token store, say. Recorded off the I/O thread, in
        /// batches; ``Provider/shutdown()`` waits until each is recorded (or kept as not
        /// recorded, see ``UnregisteredTokenRecording``). `nil`: the 410s only reach the caller.
        public var unregisteredTokens: UnregisteredTokenRecording?

        // MARK: Callbacks

        /// Where event listeners and completion handlers run, in order. `nil`: a private
        /// serial queue. Never the I/O thread.
        public var callbackQueue: DispatchQueue?
        /// The clock timeouts, backoffs and pings run on; tests pass a ``ManualClock``.
        public var clock: ConnectionClock = .continuous

        /// How the client starts its threads (its I/O thread, and a thread per connect
        /// attempt): POSIX threads, whose failure is seen. Tests give one that fails.
        package var threadStarter: ThreadStarter = .system
        /// Where the provider logs (label `swift-apn.provider`): connections opened and
        /// closed, GOAWAY, provider tokens signed (debug, info), failed attempts (notice),
        /// peer verification off (warning). Never a provider token or a key. Default:
        /// warnings and above on standard error.
        public var logHandler: any APNLogHandler = StandardErrorLogHandler()

        /// The largest response body taken: Apple's answers to notifications are under 100
        /// bytes; a channel list (``BroadcastChannels``) holds up to 10,000 ids. A larger
        /// body fails its request as a protocol error.
        var responseBodyLimit = ProviderAnswer.bodyLimit

        /// The provider's log: ``logHandler`` under its label.
        var log: ComponentLog { ComponentLog(logHandler, label: ComponentLog.Label.provider) }

        /// Options with every default.
        public init() {}

        /// Apple's production host.
        public static let productionHost = "api.push.apple.com"
        /// Apple's development host.
        public static let sandboxHost = "api.sandbox.push.apple.com"

        /// ``access`` without the certificate when provider tokens authenticate.
        var clientAccess: ServiceAccess {
            var access = access
            if !authentication.usesCertificate {
                access.cert = nil
                access.key = nil
                access.pfx = nil
                access.checksPushEnvironment = false
            }
            return access
        }
    }
}

/// How a ``Provider`` authenticates to Apple.
public enum ProviderAuthentication: Sendable, Hashable {
    /// The client certificate in ``ServiceAccess/cert`` and ``ServiceAccess/key`` (or
    /// ``ServiceAccess/pfx``) of ``Provider/Options/access``.
    case certificate
    /// Provider tokens: ES256 JSON Web Tokens signed with the `.p8` key Apple issued
    /// (`key`: its path or bytes), naming `keyID` and `teamID`; signed when first needed
    /// and renewed every ``Provider/Options/tokenRefreshInterval``.
    case token(keyID: String, teamID: String, key: CredentialSource)
    /// A provider token made elsewhere (pushok's `useExisting`), sent as it is and never
    /// renewed: whoever made it renews it, with a new provider.
    case existingToken(String)

    var usesCertificate: Bool {
        if case .certificate = self { return true }
        return false
    }

    /// Whether Apple needs an `apns-topic` on every request.
    var requiresTopic: Bool { !usesCertificate }
}
