import APN
import APNBridge
import APNTestSupport
import APNTestTraits
import Testing

/// The bridge's `logHandler` (#27 item 8): its own events and its tenants' providers log
/// there, under their labels, with no token in any message.
@Suite(.threadPerTest)
struct BridgeLoggingTests {
    @Test func theBridgeAndItsProvidersLogThroughItsHandler() async throws {
        let log = CapturingLogHandler()
        let fixture = try BridgeFixture { configuration in
            configuration.logHandler = log
            configuration.upstream.rejectUnauthorized = false
        }
        let connection = Connection(options: fixture.connectionOptions())
        for n in 0..<3 { connection.push(note(n), to: device(n)) }
        let report = await connection.shutdown()
        #expect(report.accepted == 3, "\(report)")
        // The bridge sees the client's close on its connection's thread: waited for.
        #expect(await fixture.wait { _ in log.entries.contains { $0.message == "connection closed" } })

        let entries = log.entries
        #expect(entries.contains { $0.label == "swift-apn.bridge" && $0.message == "connection opened" && $0.metadata["tenant"] == "app" })
        #expect(entries.contains { $0.label == "swift-apn.provider" && $0.level == .warning }, "the upstream's verification warning")
        #expect(entries.contains { $0.label == "swift-apn.provider" && $0.message == "provider token signed" })
        #expect(!(0..<3).contains { log.mentions(device($0).hexString) }, "no device token")
        #expect(!log.mentions("eyJ"), "no JSON Web Token")
    }
}
