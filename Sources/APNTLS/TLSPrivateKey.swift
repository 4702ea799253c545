internal import COpenSSL
internal import Glibc

/// A private key (EC or RSA), owning one OpenSSL `EVP_PKEY`.
public final class TLSPrivateKey: @unchecked Sendable {
    // @unchecked Sendable: the EVP_PKEY is never mutated after init, and OpenSSL 3 allows
    // concurrent signing and reference counting on a shared key.
    let pointer: OpaquePointer

    /// Takes ownership of `pointer` (one reference).
    init(taking pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        EVP_PKEY_free(pointer)
    }

    /// Reads a PEM private key: PKCS#8 ("PRIVATE KEY", "ENCRYPTED PRIVATE KEY") or
    /// traditional ("EC PRIVATE KEY", "RSA PRIVATE KEY", with or without `Proc-Type: 4,ENCRYPTED`).
    ///
    /// - Parameter passphrase: decrypts an encrypted key; ignored for a plain key. Without
    ///   it OpenSSL is never allowed to prompt on the terminal.
    /// - Throws: ``TLSError/Kind-swift.struct/passphraseRequired``,
    ///   ``TLSError/Kind-swift.struct/wrongPassphrase``, or
    ///   ``TLSError/Kind-swift.struct/credentials`` for unreadable data.
    public convenience init(pem: [UInt8], passphrase: String? = nil) throws(TLSError) {
        let bio = try MemoryBIO(reading: pem)
        OpenSSLErrorQueue.clear()
        var secret: [CChar] = Array((passphrase ?? "").utf8CString)
        let key = secret.withUnsafeMutableBytes { bytes in
            PEM_read_bio_PrivateKey(bio.pointer, nil, passphraseCallback, passphrase == nil ? nil : bytes.baseAddress)
        }
        for index in secret.indices { secret[index] = 0 }
        guard let key else {
            let encrypted = String(decoding: pem, as: UTF8.self).contains("ENCRYPTED")
            switch (encrypted, passphrase) {
            case (true, nil): throw .openSSL(.passphraseRequired, "reading an encrypted PEM private key")
            case (true, _): throw .openSSL(.wrongPassphrase, "decrypting the PEM private key")
            default: throw .openSSL(.credentials, "reading PEM private key")
            }
        }
        self.init(taking: key)
    }

    /// Reads a DER private key (PKCS#8 or traditional, unencrypted).
    public convenience init(der: [UInt8]) throws(TLSError) {
        OpenSSLErrorQueue.clear()
        let key: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_AutoPrivateKey(nil, &cursor, buffer.count)
        }
        guard let key else { throw .openSSL(.credentials, "reading DER private key") }
        self.init(taking: key)
    }

    /// The key as PKCS#8 PEM; encrypted with AES-256-CBC when `passphrase` is given.
    public func pem(passphrase: String? = nil) throws(TLSError) -> String {
        let bio = try MemoryBIO()
        OpenSSLErrorQueue.clear()
        let written: Int32
        if let passphrase {
            var secret = Array(passphrase.utf8)
            written = secret.withUnsafeMutableBufferPointer { bytes in
                PEM_write_bio_PKCS8PrivateKey(bio.pointer, pointer, EVP_aes_256_cbc(), bytes.baseAddress, Int32(bytes.count), nil, nil)
            }
            for index in secret.indices { secret[index] = 0 }
        } else {
            written = PEM_write_bio_PrivateKey(bio.pointer, pointer, nil, nil, 0, nil, nil)
        }
        guard written == 1 else { throw .openSSL(.credentials, "writing private key as PEM") }
        return bio.string()
    }
}

/// OpenSSL's `pem_password_cb`: copies the NUL-terminated passphrase `userData` points to,
/// or refuses (-1) when there is none, so OpenSSL never prompts on the terminal.
private func passphraseCallback(
    _ buffer: UnsafeMutablePointer<CChar>?, _ size: Int32, _ writing: Int32, _ userData: UnsafeMutableRawPointer?
) -> Int32 {
    guard let buffer, let userData else { return -1 }
    let source = userData.assumingMemoryBound(to: CChar.self)
    let length = Int32(strlen(source))
    guard length <= size else { return -1 }
    buffer.update(from: source, count: Int(length))
    return length
}
