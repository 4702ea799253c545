@testable import APN
import Testing

/// `HTTPProxy(url:)`, the environment's `https_proxy` and `no_proxy`, and the password
/// hidden wherever a proxy is shown.
@Suite("HTTP proxy: URLs and the environment")
struct HTTPProxyURLTests {
    @Test(
        "URLs read",
        arguments: [
            ("http://proxy.example.com:3128", HTTPProxy(host: "proxy.example.com", port: 3128)),
            ("HTTP://127.0.0.1:8888/", HTTPProxy(host: "127.0.0.1", port: 8888)),
            ("proxy:8080", HTTPProxy(host: "proxy", port: 8080)),
            ("  http://user:pa%40ss@proxy:3128  ", HTTPProxy(host: "proxy", port: 3128, username: "user", password: "pa@ss")),
            ("http://user@proxy:3128", HTTPProxy(host: "proxy", port: 3128, username: "user")),
            ("http://us%3Aer:p:w@proxy:3128", HTTPProxy(host: "proxy", port: 3128, username: "us:er", password: "p:w")),
            ("http://[::1]:3128", HTTPProxy(host: "::1", port: 3128)),
        ])
    func valid(text: String, expected: HTTPProxy) throws {
        #expect(try HTTPProxy(url: text) == expected)
    }

    @Test(
        "malformed URLs refused, saying why, the password hidden",
        arguments: [
            ("https://proxy:3128", "https:// proxies (TLS to the proxy) are not supported"),
            ("socks5://proxy:1080", "the scheme must be http://, not socks5://"),
            ("http://proxy", "no port"),
            ("http://proxy:", "\"\" is not a port"),
            ("http://proxy:0", "\"0\" is not a port"),
            ("http://proxy:65536", "\"65536\" is not a port"),
            ("http://proxy:31a", "\"31a\" is not a port"),
            ("http://:3128", "no host"),
            ("", "no host"),
            ("http://proxy:3128/path", "no path, query or fragment"),
            ("http://pro xy:3128", "is not a host name or address"),
            ("http://[::1:3128", "closing ]"),
            ("http://[zz]:3128", "is not an IPv6 address"),
            ("http://:secret@proxy:3128", "the user before @ is empty"),
            ("http://user:sec%zzret@proxy:3128", "the password has a bad %-escape"),
        ])
    func malformed(text: String, why: String) {
        #expect {
            try HTTPProxy(url: text)
        } throws: { error in
            let message = (error as? HTTPProxy.URLError)?.message ?? ""
            return message.contains(why) && !message.contains("secret")
        }
    }

    @Test("shown without the password")
    func redaction() {
        #expect(HTTPProxy(host: "proxy", port: 3128, username: "u s", password: "secret").description == "http://u%20s:***@proxy:3128")
        #expect(HTTPProxy(host: "::1", port: 3128).description == "http://[::1]:3128")
        #expect(HTTPProxyURL.redacted("http://user:secret@proxy:3128") == "http://user:***@proxy:3128")
        #expect(HTTPProxyURL.redacted("user:secret@proxy:3128") == "user:***@proxy:3128")
        #expect(HTTPProxyURL.redacted("http://user@proxy:3128") == "http://user@proxy:3128")
        #expect(HTTPProxyURL.redacted("http://proxy:3128") == "http://proxy:3128")
    }

    @Test(
        "no_proxy",
        arguments: [
            ("api.push.apple.com", "api.push.apple.com", true),
            ("API.Push.Apple.com.", "api.push.apple.com", true),
            ("apple.com", "api.push.apple.com", true),
            (".apple.com", "api.push.apple.com", true),
            ("*.apple.com", "apple.com", true),
            ("le.com", "api.push.apple.com", false),
            ("push.apple.com:443", "api.push.apple.com", true),
            ("example.com, *", "api.push.apple.com", true),
            ("example.com other.org", "api.push.apple.com", false),
            ("127.0.0.1", "127.0.0.1", true),
            ("127.0.0.1", "127.0.0.10", false),
            ("[::1]:443", "::1", true),
            ("::1", "[::1]", true),
            ("", "api.push.apple.com", false),
        ])
    func noProxy(list: String, host: String, excluded: Bool) {
        #expect(NoProxyList(list).excludes(host) == excluded)
    }

    @Test("docs/LIBRARY.md's proxy snippet")
    func librarySnippet() throws {
        var options = Provider.Options()
        options.proxy = HTTPProxy(host: "proxy.example.com", port: 3128, username: "push", password: "secret")
        options.proxy = try HTTPProxy(url: "http://push:secret@proxy.example.com:3128")   // the same
        options.proxy = try HTTPProxy.fromEnvironment(for: options.host)   // https_proxy unless no_proxy lists the host
        let given = HTTPProxy(host: "proxy.example.com", port: 3128, username: "push", password: "secret")
        #expect(try HTTPProxy(url: "http://push:secret@proxy.example.com:3128") == given)
        #expect("\(given)" == "http://push:***@proxy.example.com:3128")
    }

    @Test("from the environment only when asked, no_proxy honoured")
    func environment() throws {
        let host = "api.push.apple.com"
        #expect(try HTTPProxy.fromEnvironment(for: host, environment: [:]) == nil)
        #expect(try HTTPProxy.fromEnvironment(for: host, environment: ["https_proxy": ""]) == nil)
        #expect(try HTTPProxy.fromEnvironment(for: host, environment: ["http_proxy": "http://p:1"]) == nil, "https only")
        #expect(try HTTPProxy.fromEnvironment(for: host, environment: ["HTTPS_PROXY": "http://p:1"]) == HTTPProxy(host: "p", port: 1))
        #expect(
            try HTTPProxy.fromEnvironment(for: host, environment: ["https_proxy": "http://a:1", "HTTPS_PROXY": "http://b:2"])
                == HTTPProxy(host: "a", port: 1))
        #expect(try HTTPProxy.fromEnvironment(for: host, environment: ["https_proxy": "p:1", "no_proxy": ".apple.com"]) == nil)
        #expect(try HTTPProxy.fromEnvironment(for: host, environment: ["https_proxy": "p:1", "NO_PROXY": "*"]) == nil)
        #expect {
            try HTTPProxy.fromEnvironment(for: host, environment: ["https_proxy": "http://u:secret@p"])
        } throws: { error in
            let message = (error as? HTTPProxy.URLError)?.message ?? ""
            return message.hasPrefix("$https_proxy: ") && message.contains("no port") && !message.contains("secret")
        }
    }
}
