import APNSupport
import APNTLS
@testable import APNMockGateway
import APNTestSupport
import APNTestTraits
import Testing

/// A system that refuses a gateway its accept thread (`GatewayRun`): `start()` fails with a
/// `listen` error naming the gateway, which is left stopped, every thread finished, the
/// ports it bound still shown.
@Suite(.threadPerTest) struct AcceptThreadStartTests {
    /// Starts every thread but the accept threads.
    private static let noAcceptThreads = ThreadStarter { name, body in
        name.hasSuffix("-accept") ? false : ThreadStarter.system.start(name, body)
    }

    @Test func theBinaryGatewayWithoutAcceptThreadsFailsToStartAndIsStopped() throws {
        let gateway = try MockGateway(configuration: MockGateway.Configuration(), threadStarter: Self.noAcceptThreads)
        let error = #expect(throws: TLSError.self) { try gateway.start() }
        #expect(error?.kind == .listen)
        #expect(error?.context == "starting MockGateway's accept threads: the system refused a thread")
        #expect(gateway.gatewayPort != 0 && gateway.feedbackPort != 0, "the ports bound are kept")
        #expect(gateway.stop(timeout: .seconds(10)), "no thread left running")
    }

    @Test func theHTTP2GatewayWithoutAnAcceptThreadFailsToStartAndIsStopped() throws {
        let gateway = try HTTP2MockGateway(
            configuration: HTTP2MockGateway.Configuration(), threadStarter: Self.noAcceptThreads)
        let error = #expect(throws: TLSError.self) { try gateway.start() }
        #expect(error?.kind == .listen)
        #expect(error?.context == "starting HTTP2MockGateway's accept thread: the system refused a thread")
        #expect(gateway.port != 0, "the port bound is kept")
        #expect(gateway.stop(timeout: .seconds(10)).stoppedCleanly, "no thread left running")
    }
}
