import APN
import APNSupport
import APNMockGateway
import Testing
import APNTestSupport
import APNTestTraits

/// Every thread a client needs starts through its `ThreadStarter`, and one the system will
/// not start is an outcome, never a stall (#28 item 2).
@Suite("Clients: a thread that cannot start", .timeLimit(.minutes(10)), .threadPerTest)
struct ConnectionThreadStartTests {
    @Test("a connect attempt whose thread cannot start fails (socketError), and the retry limit ends it")
    func connectThreadNotStarted() async throws {
        let fixture = try GatewayFixture()
        let threads = FailingThreadStarter { $0 >= 1 }  // all but the I/O thread
        let log = ConnectionLog()
        let connection = Connection(options: fixture.options {
            $0.threadStarter = threads.starter
            $0.connectionRetryLimit = 1
            $0.errorCallback = log.errorCallback
        })
        log.listen(to: connection)
        let outcome = await connection.send(note(1), to: device(1))
        #expect(failureCode(outcome) == .connectionRetryLimitExceeded)
        #expect(threads.refused >= 1)
        #expect(log.events.contains { "\($0)".contains("no thread could be started for the connect attempt") })
        #expect(fixture.mock.records.isEmpty)
        let report = await connection.shutdown()
        #expect(report.failed == 1)
    }

    @Test("an I/O thread that cannot start runs on a Dispatch worker, logged as an error; the push is delivered")
    func ioThreadNotStarted() async throws {
        let fixture = try GatewayFixture()
        let threads = FailingThreadStarter { $0 == 0 }  // the I/O thread only
        let entries = CapturingLogHandler()
        let connection = Connection(options: fixture.options {
            $0.threadStarter = threads.starter
            $0.logHandler = entries
        })
        let outcome = await connection.send(note(1), to: device(1))
        #expect(outcome.isAccepted)
        #expect(fixture.mock.records.map(\.token) == [device(1).token])
        #expect(threads.refused == 1)
        #expect(entries.entries.contains { $0.level == .error && $0.message.contains("no thread could be started for apn-connection") })
        await connection.shutdown()
    }

    @Test("a provider whose connect thread cannot start fails the notification as connectionFailed")
    func providerConnectThreadNotStarted() async throws {
        let fixture = try ProviderFixture()
        let threads = FailingThreadStarter { $0 >= 1 }  // all but the I/O thread
        var options = try fixture.tokenOptions()
        options.threadStarter = threads.starter
        let provider = Provider(options: options)
        do {
            _ = try await provider.send(Notification().setAlertText("hi"), to: ProviderFixture.device(1))
            Issue.record("sent without a connect thread")
        } catch {
            #expect(error.code == .connectionFailed)
            #expect(error.message.contains("no thread could be started"), "\(error)")
        }
        #expect(threads.refused >= 1)
        #expect(fixture.gateway.records.isEmpty)
        await provider.shutdown()
    }
}
