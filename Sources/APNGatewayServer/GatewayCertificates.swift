package import APNTLS

/// The certificates a gateway (binary or HTTP/2) serves with: the CA it was given or one
/// it generates, and the server credentials it was given or issues from that CA for
/// `localhost`, 127.0.0.1 and ::1.
package struct GatewayCertificates {
    /// The CA: the one given, or one generated.
    package let authority: CertificateAuthority
    /// The server's certificate and key: those given, or issued from ``authority``.
    package let credentials: TLSCredentials

    /// Resolves the certificates; `commonName` names a generated CA.
    package init(authority: CertificateAuthority?, credentials: TLSCredentials?, commonName: String) throws(TLSError) {
        let resolved = if let authority { authority } else { try CertificateAuthority(commonName: commonName) }
        self.authority = resolved
        self.credentials = if let credentials { credentials } else { try resolved.issueServerCertificate().credentials() }
    }

    /// The CAs trusted for client certificates: those `given`, or the gateway's own.
    package func clientAuthorities(_ given: [TLSCertificate]?) -> [TLSCertificate] {
        given ?? [authority.certificate]
    }
}
