/// A certificate authority generated in memory through OpenSSL, for tests and the mock
/// gateway: it issues server certificates for loopback and Apple-style push client
/// certificates. Nothing is written to disk; export with ``TLSCertificate/pem()`` and
/// ``TLSPrivateKey/pem(passphrase:)`` when a file is needed.
public final class CertificateAuthority: Sendable {
    /// The self-signed CA certificate: give it to peers as the trusted CA.
    public let certificate: TLSCertificate
    /// The CA's signing key.
    public let privateKey: TLSPrivateKey

    /// Generates a new self-signed CA.
    ///
    /// - Parameters:
    ///   - commonName: the CA's subject CN.
    ///   - keyType: P-256 by default (fast); RSA 2048 on request.
    ///   - validity: one day by default; ``CertificateValidity/expired`` for negative tests.
    public init(
        commonName: String = "swift-apn Test CA", keyType: KeyType = .p256, validity: CertificateValidity = .oneDay
    ) throws(TLSError) {
        let key = try keyType.generate()
        let builder = CertificateBuilder(
            subject: [("O", "swift-apn tests"), ("CN", commonName)],
            validity: validity,
            extensions: [
                (NIDs.basicConstraints, "critical,CA:TRUE"),
                (NIDs.keyUsage, "critical,keyCertSign,cRLSign"),
                (NIDs.subjectKeyIdentifier, "hash"),
            ])
        certificate = try builder.sign(subjectKey: key, issuer: nil, issuerKey: key)
        privateKey = key
    }

    /// Issues a server certificate whose subject alternative names cover the given DNS
    /// names and IP addresses (by default localhost, 127.0.0.1 and ::1).
    public func issueServerCertificate(
        commonName: String = "localhost",
        dnsNames: [String] = ["localhost"],
        ipAddresses: [String] = ["127.0.0.1", "::1"],
        keyType: KeyType = .p256,
        validity: CertificateValidity = .oneDay
    ) throws(TLSError) -> IssuedCertificate {
        let names = dnsNames.map { "DNS:\($0)" } + ipAddresses.map { "IP:\($0)" }
        var extensions = leafExtensions(extendedKeyUsage: "serverAuth")
        if !names.isEmpty {
            extensions.append((NIDs.subjectAltName, names.joined(separator: ",")))
        }
        let builder = CertificateBuilder(subject: [("CN", commonName)], validity: validity, extensions: extensions)
        return try issue(builder, keyType: keyType)
    }

    /// Issues a push client certificate shaped like Apple's: subject
    /// `UID=<topic>, CN=Apple Push Services: <topic>`, carrying the non-critical extensions
    /// that mark it for each of `environments` (both by default) and, when `topics` is not
    /// empty, the topics extension (OID 1.2.840.113635.100.6.3.6) listing them, as Apple's
    /// certificates for both environments do (``PushTopic/universal(bundleID:)``).
    public func issueClientCertificate(
        topic: String,
        environments: [PushEnvironment] = [.sandbox, .production],
        topics: [PushTopic] = [],
        keyType: KeyType = .p256,
        validity: CertificateValidity = .oneDay
    ) throws(TLSError) -> IssuedCertificate {
        var builder = CertificateBuilder(
            subject: [("UID", topic), ("CN", "Apple Push Services: \(topic)"), ("O", "swift-apn tests")],
            validity: validity,
            extensions: leafExtensions(extendedKeyUsage: "clientAuth"))
        builder.customExtensions = environments.map { ($0.oid, [0x05, 0x00]) }
        if !topics.isEmpty { builder.customExtensions.append((PushTopicsExtension.oid, PushTopicsExtension.encode(topics))) }
        return try issue(builder, keyType: keyType)
    }

    private func leafExtensions(extendedKeyUsage: String) -> [(nid: Int32, value: String)] {
        [
            (NIDs.basicConstraints, "critical,CA:FALSE"),
            (NIDs.keyUsage, "critical,digitalSignature,keyEncipherment"),
            (NIDs.extendedKeyUsage, extendedKeyUsage),
            (NIDs.subjectKeyIdentifier, "hash"),
            (NIDs.authorityKeyIdentifier, "keyid:always"),
        ]
    }

    private func issue(_ builder: CertificateBuilder, keyType: KeyType) throws(TLSError) -> IssuedCertificate {
        let key = try keyType.generate()
        let leaf = try builder.sign(subjectKey: key, issuer: certificate, issuerKey: privateKey)
        return IssuedCertificate(certificate: leaf, privateKey: key, issuer: certificate)
    }
}

/// A certificate issued by a ``CertificateAuthority``, with its key.
public struct IssuedCertificate: Sendable {
    /// The issued (leaf) certificate.
    public let certificate: TLSCertificate
    /// The key the certificate certifies.
    public let privateKey: TLSPrivateKey
    /// The CA certificate that signed it.
    public let issuer: TLSCertificate

    /// The certificate and key as credentials for a context, checked for a matching key;
    /// expired certificates are allowed here because tests issue them on purpose.
    public func credentials() throws(TLSError) -> TLSCredentials {
        try TLSCredentials(certificate: certificate, privateKey: privateKey, allowsExpired: true)
    }
}
