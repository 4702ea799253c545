import APN
import Foundation
import Testing
import APNTestSupport
import APNTestTraits

/// The provider's connect timeout runs on its clock: an hour on a ``ManualClock`` below, so
/// only the clock's advance can end the attempt within the suite's time limit.
@Suite("HTTP/2 provider: the connect timeout on the injected clock", .timeLimit(.minutes(10)), .threadPerTest)
struct ProviderConnectClockTests {
    @Test("an unanswered handshake is given up, and its socket closed, when the manual clock passes the timeout")
    func handshakeGivesUpOnTheClock() async throws {
        let fixture = try ProviderFixture()
        let server = try SilentServer()
        defer { server.stop() }
        let clock = ManualClock()
        var options = try fixture.tokenOptions()
        options.port = server.port
        options.clock = .manual(clock)
        options.connectTimeout = .seconds(3600)
        let provider = Provider(options: options)
        let sending = Task.immediate { try? await provider.send(PushNotification().setAlertText("x"), to: ProviderFixture.device(1)) }
        #expect(await onThread { server.wait { accepted, _ in accepted == 1 } }, "the attempt is in its handshake")
        clock.advance(by: .seconds(3600))
        #expect(await onThread { server.wait { _, closed in closed >= 1 } }, "the attempt gave up and closed its socket")
        sending.cancel()
        _ = await sending.value
        await provider.shutdown()
    }
}
