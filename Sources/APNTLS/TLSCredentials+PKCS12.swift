internal import COpenSSL

extension TLSCredentials {
    /// Reads a PKCS#12 bundle (a .p12 or .pfx file's bytes): the certificate, its key and
    /// any chain certificates, which go to ``chain`` ordered nearest the leaf first.
    ///
    /// Both modern bundles (AES-256-CBC with PBKDF2 and an HMAC-SHA-256 MAC, OpenSSL 3's
    /// default) and legacy ones (RC2-40 and 3DES with a SHA-1 MAC, as macOS Keychain, older
    /// OpenSSL and node-apn-era files are) are accepted. OpenSSL 3 keeps RC2 in its
    /// "legacy" provider, which is loaded on demand: only when a bundle whose password
    /// checked out still fails to parse, and then once for the whole process (together with
    /// the "default" provider, which explicit loading would otherwise switch off). A
    /// process that only meets modern bundles never loads it.
    ///
    /// - Parameters:
    ///   - password: the bundle's password. `nil` tries the empty password, both as an
    ///     empty string and as none at all (OpenSSL writes either), as node-apn did.
    ///   - allowsExpired: accept a certificate whose `notAfter` has passed (for negative
    ///     tests); by default such a certificate is refused.
    /// - Throws: ``TLSError/Kind-swift.struct/wrongPassphrase`` when the password does not
    ///   verify the bundle's MAC; ``TLSError/Kind-swift.struct/passphraseRequired`` when no
    ///   password was given and the bundle has one; ``TLSError/Kind-swift.struct/credentials``
    ///   when the data is not PKCS#12, cannot be decrypted, or holds no certificate or no
    ///   key; and the errors of ``init(certificate:chain:privateKey:allowsExpired:)``
    ///   (key mismatch, expiry).
    public init(pkcs12: [UInt8], password: String? = nil, allowsExpired: Bool = false) throws(TLSError) {
        let bundle = try PKCS12Bundle(der: pkcs12)
        try Self.checkMAC(of: bundle, password: password)
        var parsed = Self.parse(bundle, password: password)
        if parsed == nil, try LegacyProvider.load() {
            parsed = Self.parse(bundle, password: password)  // RC2 is available now
        }
        guard let parsed else {
            throw .openSSL(
                .credentials,
                "decrypting the PKCS#12 bundle: its contents use an algorithm OpenSSL cannot decrypt, or are damaged")
        }
        guard let key = parsed.key else {
            throw TLSError(.credentials, "the PKCS#12 bundle holds no private key (only \(parsed.others.count) certificates)")
        }
        guard let certificate = parsed.certificate else {
            throw TLSError(.credentials, "the PKCS#12 bundle holds no certificate for its private key")
        }
        try self.init(
            certificate: certificate, chain: Self.chainOrder(parsed.others, after: certificate), privateKey: key,
            allowsExpired: allowsExpired)
    }

    /// Reads a PKCS#12 file (.p12 or .pfx).
    ///
    /// - Throws: ``TLSError/Kind-swift.struct/fileNotFound`` with the path, plus the errors
    ///   of ``init(pkcs12:password:allowsExpired:)``, each carrying the path.
    public init(pkcs12File path: String, password: String? = nil, allowsExpired: Bool = false) throws(TLSError) {
        let bytes = try FileBytes.read(path)
        try self = Self.at(path) { () throws(TLSError) in
            try TLSCredentials(pkcs12: bytes, password: password, allowsExpired: allowsExpired)
        }
    }

    /// The certificate, chain and key as a DER-encoded PKCS#12 bundle, ready to write to a
    /// .p12 file.
    ///
    /// - Parameters:
    ///   - password: protects the key and certificates and keys the MAC; may be empty.
    ///   - legacy: `false` (the default) writes OpenSSL 3's defaults: AES-256-CBC with
    ///     PBKDF2 for key and certificates, HMAC-SHA-256 MAC. `true` writes what older
    ///     readers (older macOS Keychain and Java releases) expect: certificates
    ///     under `pbeWithSHA1And40BitRC2-CBC`, the key under
    ///     `pbeWithSHA1And3-KeyTripleDES-CBC`, and a SHA-1 MAC; this loads OpenSSL's legacy
    ///     provider for RC2, once per process.
    public func pkcs12(password: String, legacy: Bool = false) throws(TLSError) -> [UInt8] {
        try pkcs12(password: password, legacy: legacy, iterations: nil)
    }

    /// ``pkcs12(password:legacy:)`` with `iterations` key-derivation and MAC rounds
    /// (`nil`: OpenSSL's 2048); cheap bundles for the fuzzing seeds.
    package func pkcs12(password: String, legacy: Bool, iterations: Int32?) throws(TLSError) -> [UInt8] {
        try PKCS12Bundle(
            password: password, privateKey: privateKey, certificate: certificate, chain: chain, legacy: legacy,
            iterations: iterations
        ).der()
    }

    /// Checks the password against the bundle's MAC, so a wrong one is reported as such
    /// rather than as undecryptable data. A bundle without a MAC passes.
    private static func checkMAC(of bundle: PKCS12Bundle, password: String?) throws(TLSError) {
        OpenSSLErrorQueue.clear()
        guard PKCS12_mac_present(bundle.pointer) == 1 else { return }
        if let password, !password.isEmpty {
            let verified = withSecret(password) { PKCS12_verify_mac(bundle.pointer, $0, -1) }
            if verified != 1 { throw .openSSL(.wrongPassphrase, "verifying the PKCS#12 bundle's MAC with the given password") }
        } else if PKCS12_verify_mac(bundle.pointer, nil, 0) != 1 && PKCS12_verify_mac(bundle.pointer, "", 0) != 1 {
            throw .openSSL(
                password == nil ? .passphraseRequired : .wrongPassphrase,
                "verifying the PKCS#12 bundle's MAC with the empty password")
        }
        OpenSSLErrorQueue.clear()  // a failed empty-password probe before the one that passed
    }

    /// `PKCS12_parse`: the key, the certificate matching it, and the other certificates; or
    /// `nil` when parsing failed (the failure stays on the error queue).
    private static func parse(
        _ bundle: PKCS12Bundle, password: String?
    ) -> PKCS12Contents? {
        var key: OpaquePointer?
        var certificate: OpaquePointer?
        var others: OpaquePointer?
        let parsed = withSecret(password) { secret in
            OpenSSLErrorQueue.clear()
            return PKCS12_parse(bundle.pointer, secret, &key, &certificate, &others)
        }
        // Take ownership of whatever came back, success or not, so nothing leaks.
        let ownedKey = key.map { TLSPrivateKey(taking: $0) }
        let ownedCertificate = certificate.map { TLSCertificate(taking: $0) }
        let ownedOthers = others.map { CertificateStack(taking: $0) }
        guard parsed == 1 else { return nil }
        return PKCS12Contents(key: ownedKey, certificate: ownedCertificate, others: ownedOthers?.certificates ?? [])
    }

    /// Orders `certificates` as a chain: the issuer of `leaf` first, then its issuer, and
    /// so on; any that are not part of that path follow in their original order.
    private static func chainOrder(_ certificates: [TLSCertificate], after leaf: TLSCertificate) -> [TLSCertificate] {
        var remaining = certificates
        var ordered: [TLSCertificate] = []
        var current = leaf
        while let index = remaining.firstIndex(where: { X509_check_issued($0.pointer, current.pointer) == X509_V_OK }) {
            current = remaining.remove(at: index)
            ordered.append(current)
        }
        OpenSSLErrorQueue.clear()
        return ordered + remaining
    }
}

/// What `PKCS12_parse` found in a bundle.
private struct PKCS12Contents {
    /// The private key, if the bundle has one.
    var key: TLSPrivateKey?
    /// The certificate that matches `key` (by local key ID or public key).
    var certificate: TLSCertificate?
    /// Every other certificate, in bundle order.
    var others: [TLSCertificate]
}

/// Runs `body` with `secret` as a NUL-terminated C string (or NULL), then overwrites the
/// copy so the password does not linger in freed memory.
func withSecret<T>(_ secret: String?, _ body: (UnsafePointer<CChar>?) -> T) -> T {
    guard let secret else { return body(nil) }
    var bytes = Array(secret.utf8CString)
    defer {
        for index in bytes.indices { bytes[index] = 0 }
    }
    return bytes.withUnsafeBufferPointer { body($0.baseAddress) }
}
