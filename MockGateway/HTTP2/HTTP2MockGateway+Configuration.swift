public import APNTLS
public import Foundation

extension HTTP2MockGateway {
    /// How an ``HTTP2MockGateway`` listens, authenticates and validates. Fixed at
    /// ``HTTP2MockGateway/init(configuration:)`` except ``faults``, which can also be changed
    /// while running (``HTTP2MockGateway/setFaults(_:)``).
    ///
    /// The defaults are Apple's: device tokens of 1 to 100 bytes, 4 KB payloads (5 KB for VoIP),
    /// provider tokens valid for an hour and replaceable every 20 minutes, 1,000 concurrent
    /// streams per connection.
    public struct Configuration: Sendable {
        /// The address the listener binds; loopback by default.
        public var host: String
        /// The listener's port; 0 (the default) lets the system choose.
        public var port: UInt16
        /// The CA that issues the generated server certificate and whose certificate is
        /// trusted for client certificates. `nil` (the default) generates one, exposed as
        /// ``HTTP2MockGateway/certificateAuthority``.
        public var certificateAuthority: CertificateAuthority?
        /// The server's certificate and key. `nil` (the default) issues one from the
        /// certificate authority for `localhost`, 127.0.0.1 and ::1.
        public var serverCredentials: TLSCredentials?
        /// CAs whose client certificates are accepted. `nil` (the default) trusts the
        /// certificate authority's certificate only.
        public var clientCertificateAuthorities: [TLSCertificate]?
        /// Ask clients for a certificate during the handshake (default `true`), as Apple's
        /// servers do: a client that sends one from an accepted CA is authenticated by it
        /// (certificate-based); one that sends none must send provider tokens (token-based).
        /// A certificate from another CA fails the handshake. `false` serves token clients only.
        public var requestsClientCertificate: Bool
        /// The push environment the gateway is (``PushEnvironment/sandbox`` by default): a
        /// client certificate marked for the other one only (Apple's extension OIDs
        /// 1.2.840.113635.100.6.3.1 and .2) gets 403 `BadCertificateEnvironment` on every
        /// request, as at Apple. A certificate with neither marker is not Apple-shaped and
        /// is accepted.
        public var environment: PushEnvironment
        /// The topics a client certificate may push to. Empty (the default): those of its
        /// topics extension (OID 1.2.840.113635.100.6.3.6) when it has one, else the topic
        /// in its subject `UID`, as Apple's push certificates carry them
        /// (``CertificateAuthority/issueClientCertificate(topic:environments:topics:keyType:validity:)``).
        /// A request without `apns-topic` goes to the only topic; with several it is
        /// refused with `MissingTopic`.
        public var certificateTopics: [String]
        /// The keys provider tokens are checked against, by key id (the token's `kid`):
        /// each with the team it belongs to (the token's `iss` must name it).
        public var providerKeys: [String: ProviderKey]
        /// The topics each team (by team id) may push to with provider tokens; a team not
        /// listed, or listed with no topics, may push to any.
        public var teamTopics: [String: [String]]
        /// The topic each listed device token (hex, either case) belongs to: a request for
        /// it to another topic is refused with `DeviceTokenNotForTopic`. Tokens not listed
        /// belong to every topic.
        public var deviceTopics: [String: String]
        /// How long a provider token is good for after its `iat` (Apple's: one hour).
        public var tokenMaxAge: Duration
        /// How far in the future an `iat` may lie before the token counts as expired
        /// (clocks differ): one minute.
        public var tokenClockSkew: Duration
        /// How often a connection may switch to a different provider token (Apple's: at
        /// most once every 20 minutes); a faster switch is refused with
        /// `TooManyProviderTokenUpdates` and the connection keeps its token.
        public var minimumTokenUpdateInterval: Duration
        /// The wall clock the token rules read (`Date()` by default); tests give their own
        /// to drive `iat` ages and update intervals without waiting.
        public var wallClock: @Sendable () -> Date
        /// The accepted device token lengths, in hex digits: by default every even length
        /// from 2 to 200 (``defaultDeviceTokenLengths``), as Apple's device tokens are of
        /// variable length. Odd lengths are never accepted (a token is whole bytes).
        public var deviceTokenLengths: Set<Int>
        /// 1 to 100 bytes: every even number of hex digits from 2 to 200.
        public static let defaultDeviceTokenLengths = Set(stride(from: 2, through: 200, by: 2))
        /// The largest payload, in bytes, for every push type but VoIP: 4,096.
        public var payloadLimit: Int
        /// The largest VoIP payload, in bytes: 5,120.
        public var voipPayloadLimit: Int
        /// Refuse a payload that is not a JSON object (default `true`). Apple documents no
        /// reason for it; the gateway answers 400 `PayloadEmpty`, the nearest documented
        /// one ("the message payload is empty": nothing Apple could deliver), so clients
        /// meet only reasons they know.
        public var requiresJSONObjectPayload: Bool
        /// Send `apns-unique-id` with every answer (default `true`), as Apple's development
        /// environment does; its production environment does not.
        public var sendsUniqueID: Bool
        /// SETTINGS_MAX_CONCURRENT_STREAMS: how many requests one connection may have in
        /// flight (1,000, as Apple allows); nghttp2 refuses streams beyond it.
        public var maxConcurrentStreams: UInt32
        /// How many streams a connection without a client certificate may have open until one
        /// of its requests carries a valid provider token: 1, as Apple allows ("only one
        /// stream until you post a request with a valid authentication token"); then
        /// ``maxConcurrentStreams``, in a new SETTINGS frame. `nil` allows
        /// ``maxConcurrentStreams`` from the start.
        public var streamsUntilTokenVerified: UInt32?
        /// The oldest TLS version accepted (TLS 1.2, Apple's minimum).
        public var minimumVersion: TLSVersion
        /// How long a client has to finish the TLS handshake before it is dropped (5 s).
        public var handshakeTimeout: Duration
        /// How long, after the gateway closed its side, it reads and discards what the
        /// client still sends before closing the socket (1 s), so that its last frames
        /// are not destroyed by a reset.
        public var lingerTimeout: Duration
        /// The most connections served at once, from accept to close (1,024): each holds a
        /// thread. One accepted beyond is closed before its handshake and counted in
        /// ``Summary/connectionsOverLimit``.
        public var maxConnections: Int
        /// How long a connection may send nothing (10 minutes; counted in
        /// ``Summary/idleTimeouts``): one whose client sent its preface and SETTINGS then
        /// gets a GOAWAY (NO_ERROR, the last stream processed) with `{"reason":"IdleTimeout"}`
        /// once its open streams are answered, and is closed, as Apple does; one that never
        /// got that far is dropped without a word (a peer that is not speaking HTTP/2 holds a
        /// thread), and so is one still open this long after its GOAWAY. `nil` keeps
        /// connections until the client or ``HTTP2MockGateway/stop(timeout:)`` ends them.
        public var idleTimeout: Duration?
        /// How many accepted notifications are kept in memory, and what happens beyond
        /// (``RecordRetention/standard``: the latest 1,000,000).
        public var recordRetention: RecordRetention
        /// The faults injected from the start.
        public var faults: Faults
        /// How many broadcast channels each bundle id may have (Apple's: 10,000 per
        /// environment); a create beyond is refused with `CannotCreateChannelConfig`.
        public var channelLimit = 10_000
        /// The first 8 bytes of every channel id the gateway makes, the other 8 counting the
        /// channels created (1, 2, …): a test that sets it knows the ids in advance. `nil` (the
        /// default) draws one at random.
        public var channelIDSeed: UInt64?
        /// The largest broadcast payload, in bytes (Apple's: 5,120).
        public var broadcastPayloadLimit = 5120

        /// A configuration with the defaults described on each property.
        public init(
            host: String = "127.0.0.1",
            port: UInt16 = 0,
            certificateAuthority: CertificateAuthority? = nil,
            serverCredentials: TLSCredentials? = nil,
            clientCertificateAuthorities: [TLSCertificate]? = nil,
            requestsClientCertificate: Bool = true,
            environment: PushEnvironment = .sandbox,
            certificateTopics: [String] = [],
            providerKeys: [String: ProviderKey] = [:],
            teamTopics: [String: [String]] = [:],
            deviceTopics: [String: String] = [:],
            tokenMaxAge: Duration = .seconds(3600),
            tokenClockSkew: Duration = .seconds(60),
            minimumTokenUpdateInterval: Duration = .seconds(20 * 60),
            wallClock: @escaping @Sendable () -> Date = { Date() },
            deviceTokenLengths: Set<Int> = defaultDeviceTokenLengths,
            payloadLimit: Int = 4096,
            voipPayloadLimit: Int = 5120,
            requiresJSONObjectPayload: Bool = true,
            sendsUniqueID: Bool = true,
            maxConcurrentStreams: UInt32 = 1000,
            streamsUntilTokenVerified: UInt32? = 1,
            minimumVersion: TLSVersion = .tls1_2,
            handshakeTimeout: Duration = .seconds(5),
            lingerTimeout: Duration = .seconds(1),
            maxConnections: Int = 1024,
            idleTimeout: Duration? = .seconds(600),
            recordRetention: RecordRetention = .standard,
            faults: Faults = Faults()
        ) {
            self.host = host
            self.port = port
            self.certificateAuthority = certificateAuthority
            self.serverCredentials = serverCredentials
            self.clientCertificateAuthorities = clientCertificateAuthorities
            self.requestsClientCertificate = requestsClientCertificate
            self.environment = environment
            self.certificateTopics = certificateTopics
            self.providerKeys = providerKeys
            self.teamTopics = teamTopics
            self.deviceTopics = deviceTopics
            self.tokenMaxAge = tokenMaxAge
            self.tokenClockSkew = tokenClockSkew
            self.minimumTokenUpdateInterval = minimumTokenUpdateInterval
            self.wallClock = wallClock
            self.deviceTokenLengths = deviceTokenLengths
            self.payloadLimit = payloadLimit
            self.voipPayloadLimit = voipPayloadLimit
            self.requiresJSONObjectPayload = requiresJSONObjectPayload
            self.sendsUniqueID = sendsUniqueID
            self.maxConcurrentStreams = maxConcurrentStreams
            self.streamsUntilTokenVerified = streamsUntilTokenVerified
            self.minimumVersion = minimumVersion
            self.handshakeTimeout = handshakeTimeout
            self.lingerTimeout = lingerTimeout
            self.maxConnections = maxConnections
            self.idleTimeout = idleTimeout
            self.recordRetention = recordRetention
            self.faults = faults
        }
    }

    /// A provider token signing key as the gateway knows it: the team it belongs to and its
    /// public half.
    public struct ProviderKey: Sendable {
        /// The team id (a token's `iss` must be it).
        public var teamID: String
        /// The key that must have signed the token.
        public var key: ES256VerificationKey

        /// A key of team `teamID`.
        public init(teamID: String, key: ES256VerificationKey) {
            self.teamID = teamID
            self.key = key
        }
    }
}
