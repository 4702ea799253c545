internal import COpenSSL

/// The one test ES256 keys must pass: an EC key on NIST P-256 (RFC 7518 §3.4).
enum ES256KeyCheck {
    /// Throws ``TLSError/Kind-swift.struct/wrongKeyType`` naming what `key` is instead.
    static func requireP256(_ key: OpaquePointer, _ context: String, path: String? = nil) throws(TLSError) {
        let curve = curveName(key)
        if EVP_PKEY_get_base_id(key) == EVP_PKEY_EC, let curve, isP256(curve) { return }
        let type = EVP_PKEY_get0_type_name(key).map { String(cString: $0) } ?? "unknown"
        let found = curve.map { "an \(type) key on \($0)" } ?? "an \(type) key of \(EVP_PKEY_get_bits(key)) bits"
        throw TLSError(.wrongKeyType, "\(context): ES256 needs an EC key on P-256 (prime256v1), found \(found)", path: path)
    }

    /// Throws ``TLSError/Kind-swift.struct/credentials`` unless the public key stored with
    /// the private key `key` is the one its private scalar gives: PKCS#8 and SEC1 carry both,
    /// and a damaged scalar beside an intact public key would sign what that public key
    /// (the ``ES256SigningKey/verificationKey``, Apple's copy) never verifies.
    static func requireMatchingPair(_ key: OpaquePointer, _ context: String, path: String? = nil) throws(TLSError) {
        OpenSSLErrorQueue.clear()
        let check = EVP_PKEY_CTX_new(key, nil)
        defer { EVP_PKEY_CTX_free(check) }
        guard let check, EVP_PKEY_pairwise_check(check) == 1 else {
            throw .openSSL(.credentials, "\(context): the public key stored with it is not the private key's own", path: path)
        }
    }

    /// The curve's short name, e.g. "prime256v1"; `nil` for a key that is not on a named curve.
    private static func curveName(_ key: OpaquePointer) -> String? {
        var name = [CChar](repeating: 0, count: 80)
        var length = 0
        guard EVP_PKEY_get_group_name(key, &name, name.count, &length) == 1, length > 0 else {
            OpenSSLErrorQueue.clear()
            return nil
        }
        return String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func isP256(_ curve: String) -> Bool {
        defer { OpenSSLErrorQueue.clear() }  // an unknown name queues an error
        return OBJ_txt2nid(curve) == NID_X9_62_prime256v1 || EC_curve_nist2nid(curve) == NID_X9_62_prime256v1
    }
}
