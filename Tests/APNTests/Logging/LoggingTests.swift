import APN
import APNMockGateway
import Testing
import APNTestSupport
import APNTestTraits

/// The logging hook (#27 item 8): one `APNLogHandler` on every client's options, levels as
/// swift-log's, a default that writes only what swift-apn wrote before, and no secret in
/// any message.
@Suite("Logging", .timeLimit(.minutes(10)), .threadPerTest)
struct LoggingTests {
    @Test("levels are swift-log's seven, by name and order")
    func levels() {
        #expect(APNLogLevel.allCases.map(\.rawValue) == ["trace", "debug", "info", "notice", "warning", "error", "critical"])
        #expect(APNLogLevel.allCases == APNLogLevel.allCases.sorted())
        #expect(APNLogLevel.trace < .debug && APNLogLevel.warning < .error && !(APNLogLevel.critical < .trace))
        #expect(APNLogLevel(rawValue: "notice") == .notice && APNLogLevel(rawValue: "verbose") == nil)
    }

    @Test("the standard error line: label, level in capitals, message, metadata in key order")
    func standardErrorLine() {
        let line = StandardErrorLogHandler.line(
            level: .warning, message: "TLS peer verification is off", metadata: ["peer": "h:2195", "b": "2"],
            label: "swift-apn.connection")
        #expect(line == "swift-apn.connection: WARNING: TLS peer verification is off b=2 peer=h:2195\n")
        #expect(StandardErrorLogHandler.line(level: .debug, message: "m", metadata: [:], label: "l") == "l: DEBUG: m\n")
    }

    @Test("every client's default handler writes warnings and above to standard error; one line builds one at a level")
    func defaults() {
        #expect(Connection.Options().logHandler.logLevel == .warning)
        #expect(Feedback.Options().logHandler.logLevel == .warning)
        #expect(Provider.Options().logHandler.logLevel == .warning)
        #expect(Connection.Options().logHandler is StandardErrorLogHandler)
        var options = Connection.Options()
        options.logHandler = StandardErrorLogHandler(level: APNLogLevel(rawValue: "debug") ?? .warning)
        #expect(options.logHandler.logLevel == .debug)
    }

    @Test("a Connection logs its sockets at debug and verification off once at warning; never a secret")
    func connection() async throws {
        let fixture = try GatewayFixture()
        let log = CapturingLogHandler()
        let connection = Connection(options: fixture.options {
            $0.logHandler = log
            $0.rejectUnauthorized = false
            $0.passphrase = "do-not-log-me"
        })
        for n in 1...3 { connection.push(note(n), to: device(n)) }
        _ = await connection.send(note(4), to: device(4))
        await connection.shutdown()

        let entries = log.entries
        #expect(entries.allSatisfy { $0.label == "swift-apn.connection" })
        let warnings = entries.filter { $0.level == .warning }
        #expect(warnings.count == 1, "\(entries)")
        #expect(warnings.first?.message.contains("TLS peer verification is off") == true)
        #expect(warnings.first?.metadata["peer"] == "127.0.0.1:\(fixture.mock.gatewayPort)")
        #expect(entries.contains { $0.level == .debug && $0.message == "socket connected" && $0.metadata["open_sockets"] == "1" })
        #expect(entries.contains { $0.level == .debug && $0.message == "socket closed" && $0.metadata["open_sockets"] == "0" })
        #expect(!log.mentions("do-not-log-me"))
        #expect(!log.mentions("PRIVATE KEY"))
        #expect(!(1...4).contains { log.mentions(device($0).hexString) }, "no device token")
    }

    @Test("nothing below the handler's level reaches it")
    func threshold() async throws {
        let fixture = try GatewayFixture()
        let log = CapturingLogHandler(level: .error)
        let connection = Connection(options: fixture.options { $0.logHandler = log })
        _ = await connection.send(note(1), to: device(1))
        await connection.shutdown()
        #expect(log.entries.isEmpty, "\(log.entries)")
    }

    @Test("a connection that gives up logs it at notice (its caller is told), as its failed attempts")
    func termination() async throws {
        // The gateway refuses a client without a certificate right after the handshake:
        // a failed attempt, and without retries the last.
        let fixture = try GatewayFixture()
        let log = CapturingLogHandler(level: .notice)
        let connection = Connection(options: fixture.options {
            $0.cert = nil
            $0.key = nil
            $0.settleWindow = .seconds(30)
            $0.retriesConnections = false
            $0.logHandler = log
        })
        let outcome = await connection.send(note(1), to: device(1))
        #expect(!outcome.isAccepted)
        await connection.shutdown()
        #expect(log.entries.contains { $0.level == .notice && $0.message.hasPrefix("connection attempt failed") })
        #expect(log.entries.contains { $0.level == .notice && $0.message.hasPrefix("connection gave up") })
    }
}
