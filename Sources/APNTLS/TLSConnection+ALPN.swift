internal import COpenSSL

extension TLSConnection {
    /// The application protocol the handshake agreed on through ALPN, e.g. "h2"; `nil`
    /// before the handshake, when the client offered none, or when the server does not
    /// take part in ALPN.
    package var applicationProtocol: String? {
        var name: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &name, &length)
        guard let name, length > 0 else { return nil }
        return String(decoding: UnsafeBufferPointer(start: name, count: Int(length)), as: UTF8.self)
    }
}
