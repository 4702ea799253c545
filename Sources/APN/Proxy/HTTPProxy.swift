/// An HTTP proxy that a ``Provider`` reaches Apple through (``Provider/Options/proxy``):
/// the TCP connection goes to the proxy, an HTTP `CONNECT` asks it for a tunnel to Apple's
/// host, and TLS runs through the tunnel end to end — the proxy relays bytes it cannot
/// read, and the certificate checked is Apple's, never the proxy's.
///
/// ```swift
/// var options = Provider.Options()
/// options.proxy = HTTPProxy(host: "proxy.example.com", port: 3128, username: "push", password: "secret")
/// ```
///
/// Only plain-HTTP proxies (`http://`), with optional basic authentication; the password
/// is sent in the `Proxy-Authorization` header of the `CONNECT` and nowhere else: never
/// logged, and ``description`` hides it.
public struct HTTPProxy: Sendable, Hashable, CustomStringConvertible {
    /// The proxy's host name or IP address (an IPv6 address without brackets).
    public var host: String
    /// The proxy's port.
    public var port: UInt16
    /// The user for `Proxy-Authorization: Basic`; `nil`: no authentication.
    public var username: String?
    /// The user's password (`nil`: empty), sent only with ``username``.
    public var password: String?

    /// A proxy at `host`:`port`, with a user and password when it asks for them.
    public init(host: String, port: UInt16, username: String? = nil, password: String? = nil) {
        self.host = host
        self.port = port
        self.username = username
        self.password = password
    }

    /// `host:port` (an IPv6 address in brackets): how errors and logs name the proxy.
    public var address: String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// The proxy as a URL with the password hidden: `http://user:***@host:port`, or
    /// `http://host:port` without a user.
    public var description: String {
        guard let username else { return "http://\(address)" }
        return "http://\(HTTPProxyURL.percentEncoded(username)):***@\(address)"
    }
}
