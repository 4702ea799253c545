internal import COpenSSL

/// A certificate, its chain and its private key, checked to belong together: what a
/// client presents to the gateway, or what a server presents to its clients.
public struct TLSCredentials: Sendable {
    /// The leaf certificate.
    public let certificate: TLSCertificate
    /// Intermediate certificates sent after the leaf, nearest first.
    public let chain: [TLSCertificate]
    /// The key for `certificate`.
    public let privateKey: TLSPrivateKey

    /// Combines a certificate and key after checking them.
    ///
    /// - Parameter allowsExpired: accept a certificate whose `notAfter` has passed (for
    ///   negative tests); by default such a certificate is refused.
    /// - Throws: ``TLSError/Kind-swift.struct/keyMismatch`` when the key does not belong to
    ///   the certificate; ``TLSError/Kind-swift.struct/certificateExpired`` (with the date).
    public init(
        certificate: TLSCertificate, chain: [TLSCertificate] = [], privateKey: TLSPrivateKey, allowsExpired: Bool = false
    ) throws(TLSError) {
        OpenSSLErrorQueue.clear()
        guard X509_check_private_key(certificate.pointer, privateKey.pointer) == 1 else {
            throw .openSSL(.keyMismatch, "checking the private key against the certificate \(certificate.subject)")
        }
        if !allowsExpired && certificate.isExpired {
            throw TLSError(
                .certificateExpired, "certificate \(certificate.subject) is no longer valid",
                date: certificate.notAfter)
        }
        self.certificate = certificate
        self.chain = chain
        self.privateKey = privateKey
    }

    /// Reads PEM data: the certificate followed by its chain, and the key (which may sit in
    /// the same data as the certificates).
    ///
    /// - Parameter passphrase: for an encrypted key (PKCS#8 or traditional PEM).
    public init(
        certificatePEM: [UInt8], keyPEM: [UInt8], passphrase: String? = nil, allowsExpired: Bool = false
    ) throws(TLSError) {
        let certificates = try TLSCertificate.certificates(fromPEM: certificatePEM)
        let key = try TLSPrivateKey(pem: keyPEM, passphrase: passphrase)
        try self.init(
            certificate: certificates[0], chain: Array(certificates.dropFirst()), privateKey: key,
            allowsExpired: allowsExpired)
    }

    /// Reads PEM files. `keyFile` may be the same file as `certificateFile`.
    ///
    /// - Throws: ``TLSError/Kind-swift.struct/fileNotFound`` with the path, plus the errors
    ///   of ``init(certificatePEM:keyPEM:passphrase:allowsExpired:)``, each carrying the
    ///   path of the file at fault.
    public init(
        certificateFile: String, keyFile: String, passphrase: String? = nil, allowsExpired: Bool = false
    ) throws(TLSError) {
        let certificatePEM = try FileBytes.read(certificateFile)
        let keyPEM = keyFile == certificateFile ? certificatePEM : try FileBytes.read(keyFile)
        let certificates = try Self.at(certificateFile) { () throws(TLSError) in
            try TLSCertificate.certificates(fromPEM: certificatePEM)
        }
        let key = try Self.at(keyFile) { () throws(TLSError) in
            try TLSPrivateKey(pem: keyPEM, passphrase: passphrase)
        }
        let chain = Array(certificates.dropFirst())
        try self = Self.at(certificateFile) { () throws(TLSError) in
            try TLSCredentials(
                certificate: certificates[0], chain: chain, privateKey: key, allowsExpired: allowsExpired)
        }
    }

    /// Runs `body`, adding `path` to any error it throws.
    static func at<T>(_ path: String, _ body: () throws(TLSError) -> T) throws(TLSError) -> T {
        do {
            return try body()
        } catch {
            throw TLSError(
                error.kind, error.context, openSSLErrors: error.openSSLErrors, verifyResult: error.verifyResult,
                errno: error.errno, path: path, date: error.date)
        }
    }
}
