internal import COpenSSL

/// Client-side TLS settings (an OpenSSL `SSL_CTX`), shared by every connection a client opens.
///
/// By default the server is verified against the system's CA store and the name you
/// connect to; turning that off must be said explicitly with `verifiesPeer: false` (APN's
/// clients then log a warning through their `logHandler`).
package final class TLSClientContext: @unchecked Sendable {
    // @unchecked Sendable: the SSL_CTX is fully configured in init and never changed after;
    // OpenSSL allows concurrent SSL_new() on a configured context.
    let handle: SSLContextHandle
    /// Whether connections verify the server's certificate and name.
    package let verifiesPeer: Bool

    /// Creates a client context.
    ///
    /// - Parameters:
    ///   - trustedCertificates: CA certificates that may sign the server's certificate;
    ///     `nil` uses the system store (`SSL_CTX_set_default_verify_paths`).
    ///   - verifiesPeer: verify the server's certificate chain and name (default `true`,
    ///     node-apn's `rejectUnauthorized: true`).
    ///   - credentials: the client certificate and key presented to the server, if any.
    ///   - minimumVersion: TLS 1.2 by default.
    ///   - maximumVersion: `nil` for the newest OpenSSL supports.
    ///   - applicationProtocols: the protocols offered through ALPN, most preferred first
    ///     (`["h2"]` for Apple's HTTP/2 provider API); empty (the default) offers none, as
    ///     the binary gateway expects. Read the server's choice from
    ///     ``TLSConnection/applicationProtocol`` after the handshake.
    /// - Throws: ``TLSError/Kind-swift.struct/configuration`` for a protocol name that is
    ///   empty or longer than 255 bytes.
    package init(
        trustedCertificates: [TLSCertificate]? = nil,
        verifiesPeer: Bool = true,
        credentials: TLSCredentials? = nil,
        minimumVersion: TLSVersion = .tls1_2,
        maximumVersion: TLSVersion? = nil,
        applicationProtocols: [String] = []
    ) throws(TLSError) {
        handle = try SSLContextHandle(
            method: TLS_client_method(), minimumVersion: minimumVersion, maximumVersion: maximumVersion)
        self.verifiesPeer = verifiesPeer
        if verifiesPeer {
            SSL_CTX_set_verify(handle.pointer, SSL_VERIFY_PEER, nil)
            if let trustedCertificates {
                try handle.trust(trustedCertificates)
            } else {
                OpenSSLErrorQueue.clear()
                try handle.check(SSL_CTX_set_default_verify_paths(handle.pointer) == 1, "loading the system CA store")
            }
        } else {
            SSL_CTX_set_verify(handle.pointer, SSL_VERIFY_NONE, nil)
        }
        if let credentials {
            try handle.use(credentials)
        }
        try handle.offerApplicationProtocols(applicationProtocols)
    }
}
