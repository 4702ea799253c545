internal import COpenSSL

/// Server-side TLS settings (an OpenSSL `SSL_CTX`), shared by every connection a listener
/// accepts: the server's credentials, client-certificate policy, versions and tickets.
package final class TLSServerContext: @unchecked Sendable {
    // @unchecked Sendable: the SSL_CTX is fully configured in init and never changed after;
    // OpenSSL allows concurrent SSL_new() on a configured context, and its ALPN callback
    // only reads the immutable protocol list the handle keeps.
    let handle: SSLContextHandle

    /// Creates a server context.
    ///
    /// - Parameters:
    ///   - credentials: the server certificate (+ chain) and key.
    ///   - clientCertificateAuthorities: CAs that may sign client certificates; they are
    ///     also advertised to clients in the CertificateRequest.
    ///   - requiresClientCertificate: `true` (the default, as Apple's gateway does) refuses
    ///     clients without a certificate signed by `clientCertificateAuthorities`; `false`
    ///     does not ask for a client certificate at all, unless `requestsClientCertificate`.
    ///   - minimumVersion: TLS 1.2 by default; TLS 1.0/1.1 only when asked, which lowers
    ///     OpenSSL's security level to 0 for old clients.
    ///   - maximumVersion: `nil` for the newest OpenSSL supports.
    ///   - sessionTickets: issue session tickets (TLS 1.2 tickets and TLS 1.3 tickets);
    ///     `false` sends none.
    ///   - requestsClientCertificate: with `requiresClientCertificate` `false`, still ask
    ///     for a client certificate and verify one that is sent against
    ///     `clientCertificateAuthorities` (refusing the handshake when it fails), but serve
    ///     clients that send none: one listener for certificate and token clients, as
    ///     Apple's HTTP/2 provider API has. Read what was sent from
    ///     ``TLSConnection/peerCertificate``. Ignored when a certificate is required.
    ///   - applicationProtocols: the protocols this server speaks through ALPN, most
    ///     preferred first (`["h2"]` for an HTTP/2 gateway). A client offering some of
    ///     them gets the first of these it offered; a client offering only others is
    ///     refused with the no_application_protocol alert; a client offering none is
    ///     served without a protocol. Empty (the default) ignores clients' offers.
    /// - Throws: ``TLSError/Kind-swift.struct/configuration`` for a protocol name that is
    ///   empty or longer than 255 bytes.
    package init(
        credentials: TLSCredentials,
        clientCertificateAuthorities: [TLSCertificate] = [],
        requiresClientCertificate: Bool = true,
        minimumVersion: TLSVersion = .tls1_2,
        maximumVersion: TLSVersion? = nil,
        sessionTickets: Bool = true,
        requestsClientCertificate: Bool = false,
        applicationProtocols: [String] = []
    ) throws(TLSError) {
        handle = try SSLContextHandle(
            method: TLS_server_method(), minimumVersion: minimumVersion, maximumVersion: maximumVersion)
        try handle.use(credentials)
        if requiresClientCertificate || requestsClientCertificate {
            guard !clientCertificateAuthorities.isEmpty else {
                throw TLSError(
                    .configuration,
                    "a client certificate is \(requiresClientCertificate ? "required" : "requested") but no clientCertificateAuthorities were given")
            }
            try handle.trust(clientCertificateAuthorities)
            OpenSSLErrorQueue.clear()
            for authority in clientCertificateAuthorities {
                try handle.check(SSL_CTX_add_client_CA(handle.pointer, authority.pointer) == 1, "advertising a client CA")
            }
            let failWithout = requiresClientCertificate ? SSL_VERIFY_FAIL_IF_NO_PEER_CERT : 0
            SSL_CTX_set_verify(handle.pointer, SSL_VERIFY_PEER | failWithout, nil)
        } else {
            SSL_CTX_set_verify(handle.pointer, SSL_VERIFY_NONE, nil)
        }
        // Resumed sessions with client verification need a session id context.
        let sessionContext = Array("swift-apn".utf8)
        try handle.check(
            SSL_CTX_set_session_id_context(handle.pointer, sessionContext, UInt32(sessionContext.count)) == 1,
            "setting the session id context")
        if !sessionTickets {
            _ = SSL_CTX_set_options(handle.pointer, capn_SSL_OP_NO_TICKET())
            try handle.check(SSL_CTX_set_num_tickets(handle.pointer, 0) == 1, "disabling TLS 1.3 tickets")
        }
        try handle.answerApplicationProtocols(applicationProtocols)
    }
}
