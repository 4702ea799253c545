/// The two encodings credential bytes come in. Certificates and keys given by path or as
/// bytes may be either, as node-apn accepted: the bytes themselves tell which.
package enum CredentialEncoding: Sendable, Hashable {
    /// Base64 between `-----BEGIN …-----` and `-----END …-----` lines.
    case pem
    /// Binary ASN.1.
    case der

    /// PEM when a `-----BEGIN` line starts within the first 4 KiB of `bytes` (text before
    /// it, such as a bag attribute header, is allowed), DER otherwise.
    package init(of bytes: [UInt8]) {
        let marker = Array("-----BEGIN".utf8)
        let window = bytes.prefix(4096)
        let found =
            window.count >= marker.count
            && (0...(window.count - marker.count)).contains { window[$0..<$0 + marker.count].elementsEqual(marker) }
        self = found ? .pem : .der
    }
}

extension TLSCertificate {
    /// Reads PEM (every certificate, leaf first) or DER (one certificate), whichever
    /// `bytes` hold (``CredentialEncoding/init(of:)``).
    package static func certificates(fromPEMOrDER bytes: [UInt8]) throws(TLSError) -> [TLSCertificate] {
        switch CredentialEncoding(of: bytes) {
        case .pem: try certificates(fromPEM: bytes)
        case .der: [try TLSCertificate(der: bytes)]
        }
    }
}

extension TLSPrivateKey {
    /// Reads a PEM (possibly encrypted with `passphrase`) or DER key, whichever `bytes` hold
    /// (``CredentialEncoding/init(of:)``).
    package convenience init(pemOrDER bytes: [UInt8], passphrase: String? = nil) throws(TLSError) {
        switch CredentialEncoding(of: bytes) {
        case .pem: try self.init(pem: bytes, passphrase: passphrase)
        case .der: try self.init(der: bytes)
        }
    }
}

extension ES256SigningKey {
    /// Reads a PEM or DER ES256 key (a `.p8` file is PEM), whichever `bytes` hold
    /// (``CredentialEncoding/init(of:)``).
    package convenience init(pemOrDER bytes: [UInt8]) throws(TLSError) {
        switch CredentialEncoding(of: bytes) {
        case .pem: try self.init(pem: bytes)
        case .der: try self.init(der: bytes)
        }
    }
}
