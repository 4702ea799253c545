import APNTLS

/// Why a proxy opened no tunnel, naming the proxy (never its password) and the origin, and
/// quoting what the proxy answered: the message of the ``ProviderError/Code/connectionFailed``
/// a user then reads.
struct ProxyTunnelError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    enum Kind: Sendable {
        /// The proxy answered with a status other than 2xx.
        case refused(ProxyResponseHead)
        /// The proxy's bytes are no HTTP answer, or its head passed the limit.
        case unreadable(ProxyResponseHeadDecoder.Failure)
        /// The proxy closed the connection before its answer ended.
        case closed(received: Int)
        /// Bytes came after a 2xx head, before TLS began (a TLS server speaks second).
        case bytesAfterAnswer(Int)
        /// The TCP connection to the proxy could not be made.
        case unreachable(TLSError)
        /// Writing, reading or waiting failed, or the deadline passed.
        case transport(TLSError)
        /// The origin's host cannot be written in a request (a space, a control character).
        case invalidOrigin
    }

    let kind: Kind
    /// The proxy's `host:port`.
    let proxy: String
    /// The origin's `host:port`.
    let origin: String
    /// Whether `Proxy-Authorization` was sent: a 407 then means the credentials were refused.
    let authenticated: Bool

    /// `kind` for a tunnel through `proxy` to `host`:`port`.
    init(_ kind: Kind, proxy: HTTPProxy, host: String, port: UInt16) {
        self.kind = kind
        self.proxy = proxy.address
        self.origin = ProxyConnectRequest.authority(host: host, port: port) ?? "\(host):\(port)"
        self.authenticated = proxy.username != nil
    }

    var description: String {
        let head = "the proxy \(proxy)"
        switch kind {
        case .refused(let answer):
            var text = "\(head) refused CONNECT \(origin): \"\(answer.statusLine)\""
            if answer.status == 407 {
                text += authenticated
                    ? " (the proxy's user and password were refused)"
                    : " (it wants a user and password: http://USER:PASSWORD@HOST:PORT"
                        + (answer.field("Proxy-Authenticate").map { "; it asks for \($0)" } ?? "") + ")"
            }
            return text
        case .unreadable(.tooLarge(let limit)):
            return "\(head) answered CONNECT \(origin) with a head longer than \(limit) bytes"
        case .unreadable(.notHTTP(let bytes)):
            return "\(head) answered CONNECT \(origin) with something that is not HTTP: \"\(bytes)\""
        case .unreadable(.badField(let line)):
            return "\(head) answered CONNECT \(origin) with a malformed header line: \"\(line)\""
        case .closed(let received):
            return "\(head) closed the connection before answering CONNECT \(origin)"
                + (received > 0 ? " (after \(received) bytes of an answer)" : "")
        case .bytesAfterAnswer(let count):
            return "\(head) sent \(count) bytes after opening the tunnel to \(origin), before TLS began"
        case .unreachable(let error):
            return "\(head) cannot be reached: \(error)"
        case .transport(let error) where error.kind == .timeout:
            return "\(head) did not answer CONNECT \(origin) in time (\(error))"
        case .transport(let error):
            return "\(head), asking for a tunnel to \(origin): \(error)"
        case .invalidOrigin:
            return "the host of \(origin) cannot be sent to \(head) in a CONNECT request"
        }
    }
}
