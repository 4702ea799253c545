internal import COpenSSL

/// A key that signs with ES256, ECDSA on NIST P-256 with SHA-256 (RFC 7518 §3.4): the kind
/// of key Apple issues for provider authentication tokens, as a file named
/// `AuthKey_<key id>.p8`.
public final class ES256SigningKey: Sendable {
    /// The private key, checked to be EC P-256.
    let privateKey: TLSPrivateKey
    /// The public half, for checking this key's signatures (what a gateway would hold).
    public let verificationKey: ES256VerificationKey

    /// Takes `key` after checking that it is an EC key on P-256 whose stored public key is
    /// its own.
    init(_ key: TLSPrivateKey, _ context: String, path: String? = nil) throws(TLSError) {
        try ES256KeyCheck.requireP256(key.pointer, context, path: path)
        try ES256KeyCheck.requireMatchingPair(key.pointer, context, path: path)
        privateKey = key
        verificationKey = try ES256VerificationKey(publicHalfOf: key)
    }

    /// Reads a PEM private key: PKCS#8 ("PRIVATE KEY", what a `.p8` file holds) or SEC1
    /// ("EC PRIVATE KEY"), unencrypted.
    ///
    /// - Throws: ``TLSError/Kind-swift.struct/credentials`` for unreadable data or a key whose
    ///   stored public key is not its own,
    ///   ``TLSError/Kind-swift.struct/wrongKeyType`` for a key that is not EC P-256 (an RSA
    ///   or P-384 key, say).
    public convenience init(pem: [UInt8]) throws(TLSError) {
        try self.init(TLSPrivateKey(pem: pem), "reading a PEM ES256 key")
    }

    /// Reads a DER private key: PKCS#8 `PrivateKeyInfo` or SEC1 `ECPrivateKey`, unencrypted.
    ///
    /// - Throws: as ``init(pem:)``.
    public convenience init(der: [UInt8]) throws(TLSError) {
        try self.init(TLSPrivateKey(der: der), "reading a DER ES256 key")
    }

    /// Reads a `.p8` file as Apple issues it (`AuthKey_<key id>.p8`, PKCS#8 PEM).
    ///
    /// - Throws: ``TLSError/Kind-swift.struct/fileNotFound`` and the errors of
    ///   ``init(pem:)``, each carrying the path.
    public convenience init(p8File path: String) throws(TLSError) {
        let pem = try FileBytes.read(path)
        let key = try TLSCredentials.at(path) { () throws(TLSError) in try TLSPrivateKey(pem: pem) }
        try self.init(key, "reading \(path)", path: path)
    }

    /// A new random P-256 key, e.g. for tests and the mock gateway's clients.
    public static func generate() throws(TLSError) -> ES256SigningKey {
        try ES256SigningKey(KeyType.p256.generate(), "generating an ES256 key")
    }

    /// The key as PKCS#8 PEM ("-----BEGIN PRIVATE KEY-----"), unencrypted: what an
    /// `AuthKey_<key id>.p8` file contains, readable again by ``init(pem:)`` and
    /// ``init(p8File:)``.
    public func pkcs8PEM() -> String {
        MemoryExhaustion.trap("writing an ES256 key as PEM") { () throws(TLSError) in try privateKey.pem() }
    }

    /// Signs `message` with ES256: the SHA-256 digest signed with ECDSA, returned as the
    /// 64 bytes r‖s that JOSE uses (RFC 7518 §3.4), not OpenSSL's DER form.
    ///
    /// - Throws: ``TLSError/Kind-swift.struct/signing`` when OpenSSL fails.
    public func sign(_ message: [UInt8]) throws(TLSError) -> [UInt8] {
        let digest = try DigestContext()
        OpenSSLErrorQueue.clear()
        guard EVP_DigestSignInit(digest.pointer, nil, EVP_sha256(), nil, privateKey.pointer) == 1 else {
            throw .openSSL(.signing, "starting an ES256 signature")
        }
        var length = Int(EVP_PKEY_get_size(privateKey.pointer))  // the largest DER signature
        var der = [UInt8](repeating: 0, count: length)
        guard length > 0, EVP_DigestSign(digest.pointer, &der, &length, message, message.count) == 1 else {
            throw .openSSL(.signing, "signing \(message.count) bytes with ES256")
        }
        guard let raw = ECDSASignatureFormat.raw(fromDER: Array(der.prefix(length))) else {
            throw TLSError(.signing, "converting OpenSSL's \(length)-byte DER signature to r‖s")
        }
        return raw
    }
}
