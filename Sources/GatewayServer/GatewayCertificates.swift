import APNTLS

/// The certificates a gateway (binary or HTTP/2) serves with: the CA it was given or one
/// it generates, and the server credentials it was given or issues from that CA for
/// `localhost`, 127.0.0.1 and ::1.
struct GatewayCertificates {
    let authority: CertificateAuthority
    let credentials: TLSCredentials

    init(authority: CertificateAuthority?, credentials: TLSCredentials?, commonName: String) throws(TLSError) {
        let resolved = if let authority { authority } else { try CertificateAuthority(commonName: commonName) }
        self.authority = resolved
        self.credentials = if let credentials { credentials } else { try resolved.issueServerCertificate().credentials() }
    }

    /// The CAs trusted for client certificates: those `given`, or the gateway's own.
    func clientAuthorities(_ given: [TLSCertificate]?) -> [TLSCertificate] {
        given ?? [authority.certificate]
    }
}
