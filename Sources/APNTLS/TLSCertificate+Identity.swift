internal import COpenSSL

extension TLSCertificate {
    /// The certificate in DER form, the bytes its fingerprint is taken over.
    public var der: [UInt8] {
        let length = i2d_X509(pointer, nil)
        guard length > 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: Int(length))
        let written = bytes.withUnsafeMutableBufferPointer { buffer in
            var cursor: UnsafeMutablePointer<UInt8>? = buffer.baseAddress
            return i2d_X509(pointer, &cursor)
        }
        return written == length ? bytes : []
    }

    /// The SHA-256 digest of the DER form: the fingerprint `openssl x509 -fingerprint
    /// -sha256` prints, and how a bridge's configuration names a client certificate.
    public var sha256Fingerprint: [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let done = digest.withUnsafeMutableBufferPointer { buffer in
            X509_digest(pointer, EVP_sha256(), buffer.baseAddress, &length)
        }
        guard done == 1 else {
            OpenSSLErrorQueue.clear()
            return []
        }
        return Array(digest.prefix(Int(length)))
    }

    /// The subject's `UID` attribute (OID 0.9.2342.19200300.100.1.1), decoded as UTF-8:
    /// on Apple's push certificates the app's bundle id, the topic it may push to. `nil`
    /// when the subject has none. Read from the name itself, not from the RFC 2253 text,
    /// whose escaping turns non-ASCII bytes into `\XX`.
    public var subjectUserID: String? {
        guard let name = X509_get_subject_name(pointer) else { return nil }
        let index = X509_NAME_get_index_by_NID(name, NID_userId, -1)
        guard index >= 0, let entry = X509_NAME_get_entry(name, index),
            let data = X509_NAME_ENTRY_get_data(entry)
        else { return nil }
        var utf8: UnsafeMutablePointer<UInt8>?
        let length = ASN1_STRING_to_UTF8(&utf8, data)
        guard length >= 0, let utf8 else {
            OpenSSLErrorQueue.clear()
            return nil
        }
        defer { CRYPTO_free(utf8, #fileID, #line) }
        return String(decoding: UnsafeBufferPointer(start: utf8, count: Int(length)), as: UTF8.self)
    }
}
