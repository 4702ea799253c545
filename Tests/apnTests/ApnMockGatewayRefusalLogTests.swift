import APNTLS
import Foundation
import APNTestSupport
import APNTestTraits
import Testing

/// `apn mock-gateway --http2` under connections it refuses (issue #25): its summary counts
/// those over `--max-connections` and those closed by `--idle-timeout` in its "http2"
/// object (once reported as 0, the binary gateway's counts being the only ones printed),
/// and standard error logs them while it runs, at most a line a second per kind.
@Suite("apn mock-gateway refusal counts and log", .threadPerTest, .ownsChildProcesses)
struct ApnMockGatewayRefusalLogTests {
    typealias Certificates = ApnMockGatewayFlagTests.Certificates

    /// A client context for the HTTP/2 gateway: the CA of `certificates`, its client
    /// certificate, ALPN `h2`.
    static func h2Context(_ certificates: Certificates) throws -> TLSClientContext {
        try TLSClientContext(
            trustedCertificates: TLSCertificate.certificates(
                fromPEM: Array(try Data(contentsOf: URL(fileURLWithPath: certificates.path("ca.pem"))))),
            credentials: TLSCredentials(certificateFile: certificates.path("client.pem"), keyFile: certificates.path("client.key")),
            applicationProtocols: ["h2"])
    }

    /// The `connections_refused` lines of `log`, summed by kind.
    static func loggedRefusals(_ log: String) -> [String: Int] {
        var sums: [String: Int] = [:]
        for line in log.split(separator: "\n") {
            guard let object = try? jsonObject(String(line)), object["event"] as? String == "connections_refused",
                let kind = object["kind"] as? String, let count = object["count"] as? Int
            else { continue }
            sums[kind, default: 0] += count
        }
        return sums
    }

    @Test("--http2 --max-connections 1 --idle-timeout 1: the summary and the log count the refused and the idle apart")
    func overTheCapAndIdle() throws {
        let certificates = try Certificates()
        let gateway = try ApnProcess([
            "mock-gateway", "--certs", certificates.directory, "--http2", "--max-connections", "1", "--idle-timeout", "1",
        ])
        let started = try jsonObject(try gateway.nextLine())
        let address = try #require(started["http2"] as? String)
        let port = try #require(address.split(separator: ":").last.flatMap { UInt16($0) })
        let context = try Self.h2Context(certificates)

        // A connection that completes its handshake was served (and, silent, is dropped
        // after a second); one closed before is over the cap. Told apart by what the client
        // sees, so the counts hold however the machine schedules the idle drops.
        var served: [TestClient] = []
        var refused = 0
        func attempt() throws {
            let connection = try TLSConnection.connect(host: "127.0.0.1", port: port, context: context, timeout: .seconds(5))
            if (try? connection.handshake(deadline: .now + .seconds(5))) != nil {
                served.append(TestClient(connection))
            } else {
                refused += 1
            }
        }
        try attempt()
        #expect(served.count == 1, "the first is served")
        for _ in 0..<10 { try attempt() }
        #expect(served.count + refused == 11)
        #expect(refused >= 9, "the ten beyond the cap (one served if the first was dropped meanwhile)")
        for client in served { #expect(try client.readToEnd(timeout: .seconds(30)).end != .timedOut, "dropped when idle") }
        // Two more silent ones, once the cap has room again (an attempt that comes before
        // the last one's thread has ended is refused, and counted so).
        var attempts = 0
        let wanted = served.count + 2
        while served.count < wanted, attempts < 50 {
            attempts += 1
            let before = served.count
            try attempt()
            for client in served[before...] { #expect(try client.readToEnd(timeout: .seconds(30)).end != .timedOut) }
        }
        let idle = served.count
        #expect(idle == wanted)

        // Logged while it runs, not only at the end.
        #expect(gateway.waitForStandardError(timeout: 30) { log in
            Self.loggedRefusals(log) == ["over_cap": refused, "idle_timeout": idle]
        })

        gateway.send(SIGTERM)
        let summary = try jsonObject(try gateway.nextLine())
        let http2 = try #require(summary["http2"] as? [String: Any])
        #expect(http2["refused_connections"] as? Int == refused)
        #expect(http2["idle_timeouts"] as? Int == idle)
        #expect(http2["handshake_failures"] as? Int == 0)
        #expect(http2["alpn_refusals"] as? Int == 0)
        #expect(http2["thread_start_failures"] as? Int == 0)
        #expect(http2["connections"] as? Int == idle)
        #expect(summary["refused_connections"] as? Int == 0, "the binary gateway refused none")
        #expect(summary["idle_timeouts"] as? Int == 0)
        let (status, log) = try gateway.waitForExit()
        #expect(status == 0)
        #expect(Self.loggedRefusals(log) == ["over_cap": refused, "idle_timeout": idle], "the lines add up to the summary")
        for line in log.split(separator: "\n") {
            let object = try jsonObject(String(line))
            #expect(object["event"] as? String == "connections_refused")
            #expect(object["time"] is String)
        }
    }
}
