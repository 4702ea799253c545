import APNTLS

/// Turns a connection's credential options into a TLS client context, once: node-apn loaded
/// and checked credentials on the first connection attempt and remembered the result.
/// Every failure becomes an ``APNError`` with code ``APNError/Code/credentials`` (513 for the
/// notifications waiting), with the file path and the reason.
enum ClientContextLoader {
    /// The context for `options`' credentials and verification, offering
    /// `applicationProtocols` with ALPN (`h2` for the HTTP/2 provider API; none for the
    /// binary gateway).
    static func load(_ options: ServiceAccess, applicationProtocols: [String]) throws(APNError) -> TLSClientContext {
        let credentials = try loadCredentials(options)
        if options.checksPushEnvironment, let credentials {
            let environment: PushEnvironment = options.isProduction ? .production : .sandbox
            try tls { () throws(TLSError) in try credentials.checkPushEnvironment(environment) }
        }
        var trusted: [TLSCertificate]?
        if let sources = options.ca {
            var all: [TLSCertificate] = []
            for source in sources { all += try certificates(bytes(of: source), from: source) }
            trusted = all
        }
        return try tls { () throws(TLSError) in
            try TLSClientContext(
                trustedCertificates: trusted, verifiesPeer: options.rejectUnauthorized, credentials: credentials,
                applicationProtocols: applicationProtocols)
        }
    }

    private static func loadCredentials(_ options: ServiceAccess) throws(APNError) -> TLSCredentials? {
        let passphrase = options.passphrase
        if let pfx = options.pfx {
            let bundle = try bytes(of: pfx)
            return try tls(describing: pfx) { () throws(TLSError) in try TLSCredentials(pkcs12: bundle, password: passphrase) }
        }
        guard let cert = options.cert else { return nil }
        let keySource = options.key ?? cert
        let certificateBytes = try bytes(of: cert)
        let keyBytes = keySource == cert ? certificateBytes : try bytes(of: keySource)
        let certificates = try certificates(certificateBytes, from: cert)
        let key = try tls(describing: keySource) { () throws(TLSError) in
            try TLSPrivateKey(pemOrDER: keyBytes, passphrase: passphrase)
        }
        return try tls(describing: cert) { () throws(TLSError) in
            try TLSCredentials(certificate: certificates[0], chain: Array(certificates.dropFirst()), privateKey: key)
        }
    }

    private static func certificates(_ bytes: [UInt8], from source: CredentialSource) throws(APNError) -> [TLSCertificate] {
        try tls(describing: source) { () throws(TLSError) in try TLSCertificate.certificates(fromPEMOrDER: bytes) }
    }

    /// Runs an APNTLS call, turning its error into a credentials error that names the source.
    private static func tls<T>(
        describing source: CredentialSource? = nil, _ body: () throws(TLSError) -> T
    ) throws(APNError) -> T {
        do {
            return try body()
        } catch {
            let prefix = source.map { "\(describe($0)): " } ?? ""
            throw APNError(code: .credentials, message: prefix + "\(error)")
        }
    }

    /// The bytes of `source`, read from its file (by APNTLS) when it names one.
    static func bytes(of source: CredentialSource) throws(APNError) -> [UInt8] {
        switch source {
        case .data(let bytes):
            return bytes
        case .file(let path):
            do throws(TLSError) {
                return try FileBytes.read(path)
            } catch {
                let reason = error.kind == .fileNotFound ? "not found" : "cannot be read"
                throw APNError(code: .credentials, message: "credentials file \(path) \(reason)")
            }
        }
    }

    static func describe(_ source: CredentialSource) -> String {
        switch source {
        case .file(let path): path
        case .data(let bytes): "\(bytes.count) bytes of credential data"
        }
    }
}
