import APN
import Foundation
import APNMockGateway
import Testing
import APNTestSupport
import APNTestTraits

/// A connection attempt's thread gives up on the connection's clock, with the session, not
/// after the connect timeout in real time: the timeout below is an hour on a
/// ``ManualClock``, so only the clock's advance can end it within the suite's time limit.
@Suite("Connection: connect attempts on the injected clock", .timeLimit(.minutes(10)), .threadPerTest)
struct ConnectorClockTests {
    @Test("an unanswered attempt is abandoned, and its socket closed, when the manual clock passes the connect timeout")
    func attemptGivesUpOnTheClock() async throws {
        let fixture = try GatewayFixture()
        let server = try SilentServer()
        defer { server.stop() }
        let clock = ManualClock()
        let (log, connection) = fixture.loggedConnection {
            $0.port = server.port
            $0.clock = .manual(clock)
            $0.connectTimeout = .seconds(3600)
            $0.connectionRetryLimit = 0
        }
        connection.push(note(1), to: device(1), outcome: log.outcome(1))
        #expect(await onThread { server.wait { accepted, _ in accepted == 1 } }, "the attempt is in its handshake")
        clock.advance(by: .seconds(3600))
        #expect(await onThread { server.wait { _, closed in closed >= 1 } }, "the attempt's thread gave up and closed its socket")
        #expect(log.wait { log in
            log.events.contains { if case .socketError(let error) = $0 { error.code == .connectTimeout } else { false } }
        })
        withExtendedLifetime(connection) {}
    }
}
