@testable import APN
import Testing

/// The `CONNECT` request's bytes, literal: the request line and `Host` naming the origin,
/// `Proxy-Authorization: Basic` only with a user, and hosts that would break the request
/// refused.
@Suite("HTTP proxy: the CONNECT request")
struct ProxyConnectRequestTests {
    @Test(
        "the request's bytes",
        arguments: [
            (
                HTTPProxy(host: "proxy", port: 3128), "api.push.apple.com", UInt16(443),
                "CONNECT api.push.apple.com:443 HTTP/1.1\r\nHost: api.push.apple.com:443\r\n\r\n"
            ),
            (
                HTTPProxy(host: "proxy", port: 3128, username: "Aladdin", password: "open sesame"), "127.0.0.1", 2197,
                "CONNECT 127.0.0.1:2197 HTTP/1.1\r\nHost: 127.0.0.1:2197\r\n"
                    + "Proxy-Authorization: Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==\r\n\r\n"
            ),
            (
                HTTPProxy(host: "proxy", port: 3128, username: "push"), "::1", 443,
                "CONNECT [::1]:443 HTTP/1.1\r\nHost: [::1]:443\r\nProxy-Authorization: Basic cHVzaDo=\r\n\r\n"
            ),
            (
                HTTPProxy(host: "proxy", port: 3128, username: "ü", password: "p:w"), "h", 1,
                "CONNECT h:1 HTTP/1.1\r\nHost: h:1\r\nProxy-Authorization: Basic w7w6cDp3\r\n\r\n"
            ),
        ])
    func bytes(proxy: HTTPProxy, host: String, port: UInt16, expected: String) throws {
        let authority = try #require(ProxyConnectRequest.authority(host: host, port: port))
        #expect(ProxyConnectRequest.bytes(authority: authority, proxy: proxy) == Array(expected.utf8))
    }

    @Test("a host that would break the request is refused", arguments: ["", "a b", "a\r\nX-Injected: 1", "a/b", "é.example"])
    func badHost(host: String) {
        #expect(ProxyConnectRequest.authority(host: host, port: 443) == nil)
    }
}
