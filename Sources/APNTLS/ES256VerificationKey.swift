internal import COpenSSL

/// The public half of an ES256 key: checks ES256 signatures (ECDSA on NIST P-256 with
/// SHA-256, RFC 7518 §3.4), e.g. a provider token's, against the key Apple would hold.
/// Owns one OpenSSL `EVP_PKEY` holding only the public key.
public final class ES256VerificationKey: @unchecked Sendable {
    // @unchecked Sendable: the EVP_PKEY is never mutated after init; each verification
    // uses its own EVP_MD_CTX, and OpenSSL 3 allows concurrent verification with a shared key.
    let pointer: OpaquePointer

    /// Takes ownership of `pointer` (one reference).
    private init(taking pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        EVP_PKEY_free(pointer)
    }

    /// Reads a PEM public key ("PUBLIC KEY", a SubjectPublicKeyInfo), or the public half of
    /// a PEM private key (the PKCS#8 or SEC1 forms ``ES256SigningKey/init(pem:)`` reads).
    ///
    /// - Throws: ``TLSError/Kind-swift.struct/credentials`` for unreadable data,
    ///   ``TLSError/Kind-swift.struct/wrongKeyType`` for a key that is not EC P-256.
    public convenience init(pem: [UInt8]) throws(TLSError) {
        if String(decoding: pem, as: UTF8.self).contains("PRIVATE KEY-----") {
            try self.init(publicHalfOf: TLSPrivateKey(pem: pem))
            return
        }
        let bio = try MemoryBIO(reading: pem)
        OpenSSLErrorQueue.clear()
        guard let key = PEM_read_bio_PUBKEY(bio.pointer, nil, nil, nil) else {
            throw .openSSL(.credentials, "reading a PEM public key")
        }
        self.init(taking: key)
        try ES256KeyCheck.requireP256(pointer, "reading a PEM public key")
    }

    /// Reads a DER SubjectPublicKeyInfo that fills `der` exactly.
    ///
    /// - Throws: as ``init(pem:)``.
    public convenience init(der: [UInt8]) throws(TLSError) {
        OpenSSLErrorQueue.clear()
        guard let (key, usedEveryByte) = DEREncoding.decode(der, { d2i_PUBKEY(nil, &$0, $1) }) else {
            throw .openSSL(.credentials, "reading a DER public key")
        }
        self.init(taking: key)
        guard usedEveryByte else { throw TLSError(.credentials, "reading a DER public key: bytes follow it") }
        try ES256KeyCheck.requireP256(pointer, "reading a DER public key")
    }

    /// The public half of `key`, through its SubjectPublicKeyInfo.
    convenience init(publicHalfOf key: TLSPrivateKey) throws(TLSError) {
        try ES256KeyCheck.requireP256(key.pointer, "taking the public half of a private key")
        OpenSSLErrorQueue.clear()
        guard let der = DEREncoding.encode({ i2d_PUBKEY(key.pointer, $0) }) else {
            throw .openSSL(.credentials, "taking the public half of a private key")
        }
        try self.init(der: der)
    }

    /// The key as PEM ("-----BEGIN PUBLIC KEY-----", a SubjectPublicKeyInfo), readable again
    /// by ``init(pem:)``.
    public func publicKeyPEM() -> String {
        MemoryExhaustion.trap("writing an ES256 public key as PEM") { () throws(TLSError) in
            let bio = try MemoryBIO()
            OpenSSLErrorQueue.clear()
            guard PEM_write_bio_PUBKEY(bio.pointer, pointer) == 1 else {
                throw .openSSL(.credentials, "writing a public key as PEM")
            }
            return bio.string()
        }
    }

    /// Whether `signature` is this key's ES256 signature of `message`.
    ///
    /// Only the 64-byte raw r‖s form of RFC 7518 §3.4 is accepted: a DER signature, any
    /// other length, or an r or s of zero is `false`, whatever the bytes.
    public func isValidSignature(_ signature: [UInt8], for message: [UInt8]) -> Bool {
        guard let der = ECDSASignatureFormat.der(fromRaw: signature), let digest = try? DigestContext() else {
            return false
        }
        OpenSSLErrorQueue.clear()
        defer { OpenSSLErrorQueue.clear() }  // a refused signature leaves its reason queued
        guard EVP_DigestVerifyInit(digest.pointer, nil, EVP_sha256(), nil, pointer) == 1 else { return false }
        return EVP_DigestVerify(digest.pointer, der, der.count, message, message.count) == 1
    }
}
