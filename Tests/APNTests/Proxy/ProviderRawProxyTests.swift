import APN
import APNMockGateway
import APNTestSupport
import APNTestTraits
import Foundation
import Testing

/// `Provider` through a proxy the test plays (``RawProxy``): the `CONNECT` bytes it writes,
/// with and without `Proxy-Authorization`; a tunnel that delivers to the HTTP/2 mock; and
/// every way a proxy can fail it — a refusal, garbage, silence, a head without end — each
/// a `connectionFailed` naming the proxy and what it answered, never the password, and
/// none of them hanging past the connect timeout.
@Suite("Provider through a proxy the test plays", .timeLimit(.minutes(5)), .threadPerTest)
struct ProviderRawProxyTests {
    static let established = "HTTP/1.1 200 Connection established\r\n\r\n"

    @Test("a tunnel: delivered; the CONNECT names the origin and carries basic authentication")
    func tunnel() async throws {
        let fixture = try ProviderFixture()
        defer { _ = fixture.gateway.stop() }
        let proxy = try RawProxy(.tunnel(head: Self.established))
        defer { proxy.stop() }
        let response = try await fixture.sendOnce(
            PushNotification().setAlertText("through"),
            through: HTTPProxy(host: "127.0.0.1", port: proxy.port, username: "Aladdin", password: "open sesame"))
        #expect(response.isSuccess)
        #expect(fixture.gateway.records.first?.token == ProviderFixture.device(1).hexString)
        let origin = "127.0.0.1:\(fixture.gateway.port)"
        #expect(
            proxy.requests.map { String(decoding: $0, as: UTF8.self) } == [
                "CONNECT \(origin) HTTP/1.1\r\nHost: \(origin)\r\nProxy-Authorization: Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==\r\n\r\n"
            ])
    }

    @Test("no user: no Proxy-Authorization")
    func noAuthentication() async throws {
        let fixture = try ProviderFixture()
        defer { _ = fixture.gateway.stop() }
        let proxy = try RawProxy(.tunnel(head: "HTTP/1.0 200 OK\r\nProxy-agent: test\r\n\r\n"))
        defer { proxy.stop() }
        var options = try fixture.tokenOptions()
        options.proxy = HTTPProxy(host: "127.0.0.1", port: proxy.port)
        let provider = Provider(options: options)
        let response = try await provider.send(PushNotification().setAlertText("through"), to: ProviderFixture.device(2))
        await provider.shutdown()
        #expect(response.isSuccess)
        let origin = "127.0.0.1:\(fixture.gateway.port)"
        #expect(proxy.requests.map { String(decoding: $0, as: UTF8.self) } == ["CONNECT \(origin) HTTP/1.1\r\nHost: \(origin)\r\n\r\n"])
    }

    static let refusals: [(RawProxy.Behaviour, String)] = [
        (
            .answer("HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm=\"corp\"\r\n\r\n"),
            "refused CONNECT ORIGIN: \"HTTP/1.1 407 Proxy Authentication Required\" (the proxy's user and password were refused)"
        ),
        (.answer("HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n"), "refused CONNECT ORIGIN: \"HTTP/1.1 403 Forbidden\""),
        (.answer("HTTP/1.1 502 Bad Gateway\r\n\r\n"), "refused CONNECT ORIGIN: \"HTTP/1.1 502 Bad Gateway\""),
        (.answer("SSH-2.0-OpenSSH_9.2\r\n"), "answered CONNECT ORIGIN with something that is not HTTP: \"S\""),
        (.answer(""), "closed the connection before answering CONNECT ORIGIN"),
        (.answer("HTTP/1.1 200 OK\r\n"), "closed the connection before answering CONNECT ORIGIN (after 17 bytes of an answer)"),
        (.answerAndHold(Array("HTTP/1.1 200 OK\r\nX: ".utf8) + Array(repeating: 0x61, count: 20_000)), "a head longer than 16384 bytes"),
        (.answerAndHold(Array("HTTP/1.1 200 OK\r\n\r\nhello".utf8)), "sent 5 bytes after opening the tunnel to ORIGIN, before TLS began"),
    ]

    @Test("refused, garbage, closed, endless: connectionFailed naming the proxy and its answer", arguments: 0..<refusals.count)
    func refused(index: Int) async throws {
        let (behaviour, expected) = Self.refusals[index]
        let fixture = try ProviderFixture()
        defer { _ = fixture.gateway.stop() }
        let proxy = try RawProxy(behaviour)
        defer { proxy.stop() }
        let response = try await fixture.sendOnce(
            through: HTTPProxy(host: "127.0.0.1", port: proxy.port, username: "push", password: "hunter2"))
        let origin = "127.0.0.1:\(fixture.gateway.port)"
        let error = try #require(response.error)
        #expect(error.code == .connectionFailed)
        #expect(
            error.message == "connecting to \(origin): the proxy 127.0.0.1:\(proxy.port) "
                + expected.replacingOccurrences(of: "ORIGIN", with: origin)
                || (expected.hasPrefix("a head") && error.message.hasSuffix(expected)),
            "\(error.message)")
        #expect(!error.message.contains("hunter2") && !error.message.contains("cHVzaDpodW50ZXIy"))
        #expect(fixture.gateway.recordCount == 0)
    }

    @Test("407 without a user: the message says how to give one")
    func authenticationWanted() async throws {
        let fixture = try ProviderFixture()
        defer { _ = fixture.gateway.stop() }
        let proxy = try RawProxy(.answer("HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm=\"corp\"\r\n\r\n"))
        defer { proxy.stop() }
        let response = try await fixture.sendOnce(through: HTTPProxy(host: "127.0.0.1", port: proxy.port))
        #expect(
            response.error?.message.hasSuffix(
                "(it wants a user and password: http://USER:PASSWORD@HOST:PORT; it asks for Basic realm=\"corp\")") == true,
            "\(String(describing: response.error))")
    }

    @Test("a proxy that never answers: given up at the connect timeout")
    func silent() async throws {
        let fixture = try ProviderFixture()
        defer { _ = fixture.gateway.stop() }
        let proxy = try RawProxy(.silent)
        defer { proxy.stop() }
        let started = ContinuousClock.now
        let response = try await fixture.sendOnce(through: HTTPProxy(host: "127.0.0.1", port: proxy.port)) {
            $0.connectTimeout = .milliseconds(300)
        }
        #expect(ContinuousClock.now - started < .seconds(30))
        let message = response.error?.message ?? ""
        #expect(
            response.error?.code == .connectionFailed
                && message.contains("the proxy 127.0.0.1:\(proxy.port) did not answer CONNECT 127.0.0.1:\(fixture.gateway.port) in time"),
            "\(message)")
    }

    @Test("a proxy nothing listens on: connectionFailed naming it")
    func noProxy() async throws {
        let fixture = try ProviderFixture()
        defer { _ = fixture.gateway.stop() }
        let proxy = try RawProxy(.silent)
        let port = proxy.port
        proxy.stop()
        let response = try await fixture.sendOnce(through: HTTPProxy(host: "127.0.0.1", port: port))
        #expect(response.error?.code == .connectionFailed)
        #expect(
            response.error?.message.contains("the proxy 127.0.0.1:\(port) cannot be reached: TCP connect failed: connecting to 127.0.0.1:\(port)")
                == true, "\(String(describing: response.error))")
    }
}
