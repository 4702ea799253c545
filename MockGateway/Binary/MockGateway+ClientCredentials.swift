public import APNTLS

extension MockGateway {
    /// What a client needs to reach a started ``MockGateway`` over mutual TLS, in PEM text
    /// any TLS stack reads: the address, both ports, a client certificate and key the
    /// gateway's ``certificateAuthority`` issued, and that authority's certificate to trust.
    /// The mock depends on no client module, so it hands over these rather than any one
    /// client's options; APN's `ServiceAccess(_:port:)` takes them as they are.
    public struct ClientCredentials: Sendable, Hashable {
        /// The address the gateway listens on (``Configuration/host``).
        public var host: String
        /// The gateway listener's port, the one bound.
        public var gatewayPort: UInt16
        /// The feedback listener's port, the one bound.
        public var feedbackPort: UInt16
        /// The client certificate, PEM.
        public var certificatePEM: String
        /// The client certificate's private key, PEM (unencrypted: a test's throwaway key).
        public var privateKeyPEM: String
        /// The certificate of the authority that issued the gateway's certificate, PEM.
        public var certificateAuthorityPEM: String

        /// Credentials as given.
        public init(
            host: String, gatewayPort: UInt16, feedbackPort: UInt16,
            certificatePEM: String, privateKeyPEM: String, certificateAuthorityPEM: String
        ) {
            self.host = host
            self.gatewayPort = gatewayPort
            self.feedbackPort = feedbackPort
            self.certificatePEM = certificatePEM
            self.privateKeyPEM = privateKeyPEM
            self.certificateAuthorityPEM = certificateAuthorityPEM
        }
    }

    /// Credentials for a client of this gateway: a client certificate its
    /// ``certificateAuthority`` issues now for `topic` (both push environments, valid a day),
    /// with the address and ports. Call after ``start()``: the ports are the ones bound.
    public func clientCredentials(topic: String = "com.example.tests") throws(TLSError) -> ClientCredentials {
        let client = try certificateAuthority.issueClientCertificate(topic: topic)
        return ClientCredentials(
            host: configuration.host, gatewayPort: gatewayPort, feedbackPort: feedbackPort,
            certificatePEM: try client.certificate.pem(), privateKeyPEM: try client.privateKey.pem(),
            certificateAuthorityPEM: try certificateAuthority.certificate.pem())
    }
}
