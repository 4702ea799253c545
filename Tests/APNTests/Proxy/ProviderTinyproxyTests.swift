import APN
import APNMockGateway
import APNTestSupport
import APNTestTraits
import Foundation
import Testing

/// `Provider` through a real proxy: Debian's `tinyproxy`, started by each test on a free
/// port with a configuration it writes (127.0.0.1 allowed, `CONNECT` to the mock's port
/// only), never the system's service. Skipped with a note where it is not installed.
@Suite(
    "Provider through tinyproxy", .timeLimit(.minutes(5)), .threadPerTest, .ownsChildProcesses,
    .enabled(if: Tinyproxy.isInstalled, "no \(Tinyproxy.path) (apt install tinyproxy)"))
struct ProviderTinyproxyTests {
    /// Runs `body` with a mock, a tinyproxy that tunnels to it, and token options through it.
    static func throughTinyproxy(_ body: (ProviderFixture, Provider.Options) async throws -> Void) async throws {
        let fixture = try ProviderFixture()
        defer { _ = fixture.gateway.stop() }
        let directory = try ProviderFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let tinyproxy = try Tinyproxy(directory: directory, connectPorts: [fixture.gateway.port])
        var options = try fixture.tokenOptions()
        options.proxy = HTTPProxy(host: "127.0.0.1", port: tinyproxy.port)
        try await body(fixture, options)
    }

    @Test("delivered through the tunnel, and seen by the mock")
    func delivered() async throws {
        try await Self.throughTinyproxy { fixture, options in
            let provider = Provider(options: options)
            let responses = await provider.send(PushNotification().setAlertText("via tinyproxy"), to: (0..<20).map(ProviderFixture.device))
            await provider.shutdown()
            #expect(responses.allSatisfy { $0.isSuccess }, "\(responses.compactMap(\.error).prefix(2))")
            #expect(Set(fixture.gateway.records.map(\.token)) == Set((0..<20).map { ProviderFixture.device($0).hexString }))
            let first = try #require(fixture.gateway.records.first)
            #expect(String(decoding: first.payload, as: UTF8.self) == #"{"aps":{"alert":"via tinyproxy"}}"#)
        }
    }

    @Test("a port tinyproxy does not CONNECT to: refused, its status line in the message")
    func refusedPort() async throws {
        let fixture = try ProviderFixture()
        defer { _ = fixture.gateway.stop() }
        let directory = try ProviderFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let other = fixture.gateway.port == 443 ? 444 : 443
        let tinyproxy = try Tinyproxy(directory: directory, connectPorts: [UInt16(other)])
        let response = try await fixture.sendOnce(through: HTTPProxy(host: "127.0.0.1", port: tinyproxy.port))
        let message = response.error?.message ?? ""
        #expect(response.error?.code == .connectionFailed)
        #expect(
            message.hasPrefix(
                "connecting to 127.0.0.1:\(fixture.gateway.port): the proxy 127.0.0.1:\(tinyproxy.port) refused CONNECT "
                    + "127.0.0.1:\(fixture.gateway.port): \"HTTP/1.") && message.contains(" 403 "), "\(message)")
        #expect(fixture.gateway.recordCount == 0)
    }

    @Test("basic authentication: 407 without the user, delivered with it")
    func authentication() async throws {
        let fixture = try ProviderFixture()
        defer { _ = fixture.gateway.stop() }
        let directory = try ProviderFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let tinyproxy = try Tinyproxy(
            directory: directory, connectPorts: [fixture.gateway.port], credentials: ("push", "s3cret"))
        let response = try await fixture.sendOnce(through: HTTPProxy(host: "127.0.0.1", port: tinyproxy.port))
        #expect(response.error?.message.contains(" 407 ") == true, "\(String(describing: response.error))")
        #expect(response.error?.message.contains("it wants a user and password") == true)

        let delivered = try await fixture.sendOnce(
            PushNotification().setAlertText("authenticated"), to: ProviderFixture.device(2),
            through: HTTPProxy(host: "127.0.0.1", port: tinyproxy.port, username: "push", password: "s3cret"))
        #expect(delivered.isSuccess)
        #expect(fixture.gateway.records.map(\.token) == [ProviderFixture.device(2).hexString])
    }

    @Test("channel management and a broadcast through the tunnel")
    func broadcastChannels() async throws {
        try await Self.throughTinyproxy { fixture, options in
            let channels = BroadcastChannels(options: options)
            let channel = try await channels.create(storagePolicy: .mostRecentMessageStored)
            let provider = Provider(options: options)
            let update = PushNotification()
            update.event = "update"
            update.contentState = ["score": "1-0"]
            try await provider.broadcast(update, to: channel)
            #expect(try await channels.list() == [channel.id])
            await provider.shutdown()
            await channels.shutdown()
            #expect(fixture.gateway.broadcasts.map(\.channelID) == [channel.id])
        }
    }
}
