internal import COpenSSL

/// Owns one OpenSSL `SSL_CTX` and holds the settings client and server share.
final class SSLContextHandle {
    let pointer: OpaquePointer
    /// A server's ALPN protocols, kept alive here because the SSL_CTX's select callback
    /// holds only a raw pointer to them (see ``answerApplicationProtocols(_:)``). Set
    /// while the context is configured, never after.
    var alpnPreference: ALPNServerPreference?

    /// A context for `method` (`TLS_client_method()` or `TLS_server_method()`) with the
    /// modes the non-blocking connection relies on and the version bounds applied.
    init(method: OpaquePointer?, minimumVersion: TLSVersion, maximumVersion: TLSVersion?) throws(TLSError) {
        OpenSSLErrorQueue.clear()
        guard let context = SSL_CTX_new(method) else { throw .openSSL(.configuration, "creating an SSL_CTX") }
        pointer = context
        // Partial writes let `write` report progress instead of blocking on a full record;
        // a moving buffer lets callers retry a WANT_WRITE from a different address.
        let modes = SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER
        _ = capn_SSL_CTX_set_mode(context, Int(modes))
        try check(capn_SSL_CTX_set_min_proto_version(context, minimumVersion.rawValue) == 1, "setting minimum \(minimumVersion)")
        if let maximumVersion {
            try check(maximumVersion >= minimumVersion, "maximum \(maximumVersion) is below minimum \(minimumVersion)")
            try check(capn_SSL_CTX_set_max_proto_version(context, maximumVersion.rawValue) == 1, "setting maximum \(maximumVersion)")
        }
        if minimumVersion < .tls1_2 {
            // OpenSSL 3 refuses TLS 1.0/1.1 (SHA-1 signatures) above security level 0.
            SSL_CTX_set_security_level(context, 0)
        }
    }

    deinit {
        SSL_CTX_free(pointer)
    }

    /// Adds `certificates` to the context's trust store.
    func trust(_ certificates: [TLSCertificate]) throws(TLSError) {
        OpenSSLErrorQueue.clear()
        let store = SSL_CTX_get_cert_store(pointer)
        for certificate in certificates {
            try check(X509_STORE_add_cert(store, certificate.pointer) == 1, "trusting \(certificate.subject)")
        }
    }

    /// Presents `credentials` (leaf, chain and key) to the peer.
    func use(_ credentials: TLSCredentials) throws(TLSError) {
        OpenSSLErrorQueue.clear()
        try check(SSL_CTX_use_certificate(pointer, credentials.certificate.pointer) == 1, "using the certificate")
        for certificate in credentials.chain {
            try check(capn_SSL_CTX_add1_chain_cert(pointer, certificate.pointer) == 1, "adding a chain certificate")
        }
        try check(SSL_CTX_use_PrivateKey(pointer, credentials.privateKey.pointer) == 1, "using the private key")
        try check(SSL_CTX_check_private_key(pointer) == 1, "checking the private key")
    }

    /// Throws a configuration error carrying OpenSSL's queue when `ok` is false.
    func check(_ ok: Bool, _ step: String) throws(TLSError) {
        if !ok { throw .openSSL(.configuration, step) }
    }
}
