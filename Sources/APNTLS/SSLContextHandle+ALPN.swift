internal import COpenSSL

extension SSLContextHandle {
    /// Client: offers `protocols` in the ClientHello, most preferred first. An empty list
    /// sends no ALPN extension.
    func offerApplicationProtocols(_ protocols: [String]) throws(TLSError) {
        guard !protocols.isEmpty else { return }
        let wire = try ALPN.wireFormat(protocols)
        OpenSSLErrorQueue.clear()
        // Unlike most of OpenSSL, SSL_CTX_set_alpn_protos returns 0 on success.
        try check(
            SSL_CTX_set_alpn_protos(pointer, wire, UInt32(wire.count)) == 0,
            "offering the application protocols \(protocols)")
    }

    /// Server: answers a client's ALPN offer with the first of `protocols` it also offers,
    /// and refuses the handshake with the no_application_protocol alert when it offers none
    /// of them. A client that sends no ALPN extension is served without a protocol. An
    /// empty list leaves ALPN off: offers are ignored.
    func answerApplicationProtocols(_ protocols: [String]) throws(TLSError) {
        guard !protocols.isEmpty else { return }
        let preference = ALPNServerPreference(wire: try ALPN.wireFormat(protocols))
        // The SSL_CTX keeps only the raw pointer; this handle keeps the object alive for as
        // long as the SSL_CTX (and every SSL made from it, which holds the handle) exists.
        alpnPreference = preference
        SSL_CTX_set_alpn_select_cb(pointer, selectApplicationProtocol, Unmanaged.passUnretained(preference).toOpaque())
    }
}

/// The server's application protocols in ALPN wire format, most preferred first: the
/// `arg` OpenSSL hands to ``selectApplicationProtocol``.
final class ALPNServerPreference: Sendable {
    let wire: [UInt8]

    init(wire: [UInt8]) {
        self.wire = wire
    }
}

/// OpenSSL's ALPN select callback (`SSL_CTX_alpn_select_cb_func`), called during a server
/// handshake only when the client sent an ALPN extension. Points `selected` into the
/// client's own list (valid for the call; OpenSSL copies it), or asks for the fatal
/// no_application_protocol alert when nothing is shared.
private func selectApplicationProtocol(
    _ ssl: OpaquePointer?,
    _ selected: UnsafeMutablePointer<UnsafePointer<UInt8>?>?,
    _ selectedLength: UnsafeMutablePointer<UInt8>?,
    _ offered: UnsafePointer<UInt8>?,
    _ offeredLength: UInt32,
    _ argument: UnsafeMutableRawPointer?
) -> Int32 {
    guard let selected, let selectedLength, let offered, let argument else { return SSL_TLSEXT_ERR_ALERT_FATAL }
    let preference = Unmanaged<ALPNServerPreference>.fromOpaque(argument).takeUnretainedValue()
    let offeredBytes = UnsafeBufferPointer(start: offered, count: Int(offeredLength))
    guard let choice = ALPN.choose(preferred: preference.wire, offered: offeredBytes) else {
        return SSL_TLSEXT_ERR_ALERT_FATAL
    }
    selected.pointee = offered + choice.lowerBound
    selectedLength.pointee = UInt8(choice.count)
    return SSL_TLSEXT_ERR_OK
}
