public import APNTLS
public import APNWire

extension MockGateway {
    /// How a ``MockGateway`` listens, authenticates and validates. Fixed at ``MockGateway/init(configuration:)``
    /// except ``faults``, which can also be changed while running (``MockGateway/setFaults(_:)``).
    public struct Configuration: Sendable {
        /// The address both listeners bind; loopback by default.
        public var host: String
        /// The gateway listener's port; 0 (the default) lets the system choose.
        public var gatewayPort: UInt16
        /// The feedback listener's port; 0 (the default) lets the system choose.
        public var feedbackPort: UInt16
        /// The CA that issues the generated server certificate and whose certificate is
        /// trusted for client certificates. `nil` (the default) generates one, exposed as
        /// ``MockGateway/certificateAuthority`` so tests can issue client certificates.
        public var certificateAuthority: CertificateAuthority?
        /// The server's certificate and key. `nil` (the default) issues one from the
        /// certificate authority for `localhost`, 127.0.0.1 and ::1.
        public var serverCredentials: TLSCredentials?
        /// CAs whose client certificates are accepted. `nil` (the default) trusts the
        /// certificate authority's certificate only.
        public var clientCertificateAuthorities: [TLSCertificate]?
        /// Refuse clients without a certificate signed by a trusted CA, as Apple's gateway
        /// did (default `true`).
        public var requiresClientCertificate: Bool
        /// The oldest TLS version accepted (TLS 1.2 by default).
        public var minimumVersion: TLSVersion
        /// The newest TLS version offered; `nil` for the newest OpenSSL supports.
        public var maximumVersion: TLSVersion?
        /// Issue TLS session tickets (default `true`); some old clients break on TLS 1.3 tickets.
        public var sessionTickets: Bool
        /// The token and payload bounds the gateway enforces (Apple's by default).
        public var limits: GatewayDecoder.Limits
        /// The faults injected from the start.
        public var faults: Faults
        /// How long a client has to finish the TLS handshake before it is dropped (5 s).
        public var handshakeTimeout: Duration
        /// How long, after the gateway closed its side, it keeps reading and discarding
        /// what the client still sends before closing the socket (1 s). Closing with
        /// unread bytes would make the kernel send a reset, which can destroy the error
        /// response before the client reads it.
        public var lingerTimeout: Duration
        /// The most connections served at once on each listener (gateway, feedback), from
        /// accept to close (1,024): each holds a thread. One accepted beyond is closed
        /// before its handshake and counted in ``MockGateway/refusedConnectionCount``.
        public var maxConnections: Int
        /// How long a gateway connection may send nothing before the gateway closes it
        /// (10 minutes; counted in ``MockGateway/idleTimeoutCount``); `nil` keeps idle
        /// connections until the client or ``MockGateway/stop(timeout:)`` ends them.
        public var idleTimeout: Duration?
        /// How many accepted notifications are kept in memory, and what happens beyond
        /// (``RecordRetention/standard``: the latest 1,000,000).
        public var recordRetention: RecordRetention

        /// A configuration with the defaults described on each property.
        public init(
            host: String = "127.0.0.1",
            gatewayPort: UInt16 = 0,
            feedbackPort: UInt16 = 0,
            certificateAuthority: CertificateAuthority? = nil,
            serverCredentials: TLSCredentials? = nil,
            clientCertificateAuthorities: [TLSCertificate]? = nil,
            requiresClientCertificate: Bool = true,
            minimumVersion: TLSVersion = .tls1_2,
            maximumVersion: TLSVersion? = nil,
            sessionTickets: Bool = true,
            limits: GatewayDecoder.Limits = GatewayDecoder.Limits(),
            faults: Faults = Faults(),
            handshakeTimeout: Duration = .seconds(5),
            lingerTimeout: Duration = .seconds(1),
            maxConnections: Int = 1024,
            idleTimeout: Duration? = .seconds(600),
            recordRetention: RecordRetention = .standard
        ) {
            self.host = host
            self.gatewayPort = gatewayPort
            self.feedbackPort = feedbackPort
            self.certificateAuthority = certificateAuthority
            self.serverCredentials = serverCredentials
            self.clientCertificateAuthorities = clientCertificateAuthorities
            self.requiresClientCertificate = requiresClientCertificate
            self.minimumVersion = minimumVersion
            self.maximumVersion = maximumVersion
            self.sessionTickets = sessionTickets
            self.limits = limits
            self.faults = faults
            self.handshakeTimeout = handshakeTimeout
            self.lingerTimeout = lingerTimeout
            self.maxConnections = maxConnections
            self.idleTimeout = idleTimeout
            self.recordRetention = recordRetention
        }
    }
}
