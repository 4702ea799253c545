import Foundation

/// The bytes of an HTTP `CONNECT` request (RFC 9110 §9.3.6), pure: the request line and
/// `Host` naming the origin, and `Proxy-Authorization: Basic` when the proxy has a user.
enum ProxyConnectRequest {
    /// `host:port` as a request target: an IPv6 address in brackets; nil for a host with a
    /// byte that would break the request (a space, a control character, non-ASCII): a
    /// header injected through a host name must not reach the proxy.
    static func authority(host: String, port: UInt16) -> String? {
        guard !host.isEmpty, host.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "/") }) else {
            return nil
        }
        return host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// The request for a tunnel to `authority` (from ``authority(host:port:)``).
    static func bytes(authority: String, proxy: HTTPProxy) -> [UInt8] {
        var text = "CONNECT \(authority) HTTP/1.1\r\nHost: \(authority)\r\n"
        if let username = proxy.username {
            text += "Proxy-Authorization: \(basicCredentials(username: username, password: proxy.password ?? ""))\r\n"
        }
        text += "\r\n"
        return Array(text.utf8)
    }

    /// `Basic base64(user:password)` (RFC 7617), the user and password as UTF-8.
    static func basicCredentials(username: String, password: String) -> String {
        "Basic " + Data("\(username):\(password)".utf8).base64EncodedString()
    }
}
