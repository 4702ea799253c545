import APN
import APNTLS
import APNWire
import APNMockGateway
import Testing
import APNTestSupport
import APNTestTraits

/// Connecting, reconnecting, giving up, idling: the connection's life over real sockets.
@Suite("Connection: connecting, backoff, termination and idle close", .timeLimit(.minutes(10)), .threadPerTest)
struct ConnectionLifecycleTests {
    @Test("refused connections back off 1 s, 2 s on the injected clock, then fail with 514; later pushes 515")
    func backoffThenRetryLimit() async throws {
        let fixture = try GatewayFixture()
        _ = fixture.mock.stop()
        let clock = ManualClock()
        let log = ConnectionLog()
        let connection = Connection(options: fixture.options {
            $0.clock = .manual(clock)
            $0.connectionRetryLimit = 2
            $0.errorCallback = log.errorCallback
        })
        log.listen(to: connection)
        connection.push(note(1), to: device(1), outcome: log.outcome(1))
        connection.push(note(2), to: device(2), outcome: log.outcome(2))
        let socketErrors = { (log: ConnectionLog) in log.eventNames.filter { $0 == "socketError" }.count }
        #expect(log.wait { socketErrors($0) == 1 })
        clock.advance(by: .seconds(1))
        #expect(log.wait { socketErrors($0) == 2 })
        #expect(log.outcomes.isEmpty)
        clock.advance(by: .seconds(2))
        #expect(log.wait { $0.outcomes.count == 2 })
        #expect(failureCode(log.outcomes[1]) == .connectionRetryLimitExceeded)
        // Once each, when the retry limit decided their outcome; the failed attempts before
        // it (socketError each) decided nothing.
        #expect(log.callbacks.map(\.code) == [.status(.connectionRetryLimitExceeded), .status(.connectionRetryLimitExceeded)])
        #expect(log.callbacks.map(\.device) == [device(1), device(2)])
        #expect(log.wait { $0.eventNames.contains("error") })
        connection.push(note(3), to: device(3), outcome: log.outcome(3))
        #expect(log.wait { $0.outcomes[3] != nil })
        #expect(failureCode(log.outcomes[3]) == .connectionTerminated)
        let report = await connection.shutdown()
        #expect(report.failed == 3)
    }

    @Test("a connection that gets through reconnects after the backoff and delivers")
    func recoversAfterBackoff() async throws {
        let fixture = try GatewayFixture.onFixedPort { port in try GatewayFixture { $0.gatewayPort = port } }
        let port = fixture.mock.gatewayPort
        _ = fixture.mock.stop()
        let clock = ManualClock()
        let log = ConnectionLog()
        let connection = Connection(options: fixture.options { $0.clock = .manual(clock); $0.port = port })
        log.listen(to: connection)
        connection.push(note(1), to: device(1), outcome: log.outcome(1))
        #expect(log.wait { $0.eventNames.contains("socketError") })
        let second = try GatewayFixture { $0.gatewayPort = port; $0.certificateAuthority = fixture.mock.certificateAuthority }
        clock.advance(by: .seconds(1))
        await second.expectRecords(1)
        await connection.acknowledgementBarrier()  // the window starts once the gateway has it
        clock.advance(by: .seconds(3))  // the grace window (the fixture's 2 s) on the injected clock
        #expect(log.wait { $0.outcomes[1] != nil })
        #expect(log.outcomes[1] == .accepted(Acceptance(evidence: .graceWindow)))
        await connection.shutdown()
    }

    @Test("unreadable credentials: 513 with the path, error event, nothing retried, later pushes 515")
    func badCredentials() async throws {
        let fixture = try GatewayFixture()
        let log = ConnectionLog()
        let connection = Connection(options: fixture.options {
            $0.cert = "/nonexistent/swift-apn/cert.pem"
            $0.errorCallback = log.errorCallback
        })
        log.listen(to: connection)
        connection.push(note(1), to: device(1), outcome: log.outcome(1))
        #expect(log.wait { $0.outcomes[1] != nil })
        #expect(failureCode(log.outcomes[1]) == .initialisationFailed)
        #expect(log.callbacks.map(\.code) == [.status(.moduleInitialisationFailed)])
        #expect(log.wait { $0.eventNames.contains("error") })
        let error = log.events.compactMap { if case .error(let error) = $0 { error } else { nil } }.first
        #expect(error?.message.contains("/nonexistent/swift-apn/cert.pem") == true)
        #expect(error?.message.contains("not found") == true)
        #expect(fixture.mock.connectionCount == 0)
        connection.push(note(2), to: device(2), outcome: log.outcome(2))
        #expect(log.wait { $0.outcomes[2] != nil })
        #expect(failureCode(log.outcomes[2]) == .connectionTerminated)
        await connection.shutdown()
    }

    @Test("a certificate without the production push extension is refused for production (513)")
    func wrongEnvironment() async throws {
        let fixture = try GatewayFixture()
        let sandboxOnly = try fixture.mock.certificateAuthority.issueClientCertificate(
            topic: "com.example.tests", environments: [.sandbox])
        let log = ConnectionLog()
        let connection = Connection(options: fixture.options {
            $0.cert = .data(Array(try! sandboxOnly.certificate.pem().utf8))
            $0.key = .data(Array(try! sandboxOnly.privateKey.pem().utf8))
            $0.production = true
        })
        log.listen(to: connection)
        connection.push(note(1), to: device(1), outcome: log.outcome(1))
        #expect(log.wait { $0.outcomes[1] != nil })
        #expect(failureCode(log.outcomes[1]) == .initialisationFailed)
        #expect(log.wait { $0.eventNames.contains("error") })
        let error = log.events.compactMap { if case .error(let error) = $0 { error } else { nil } }.first
        #expect(error?.message.contains("production: true") == true)
        await connection.shutdown()
    }

    @Test("an untrusted gateway is refused by default (socketError, verify)")
    func untrustedGateway() async throws {
        let fixture = try GatewayFixture()
        let log = ConnectionLog()
        let otherCA = try CertificateAuthority()
        let connection = Connection(options: fixture.options {
            $0.ca = [.data(Array(try! otherCA.certificate.pem().utf8))]
            $0.connectionRetryLimit = 0
        })
        log.listen(to: connection)
        connection.push(note(1), to: device(1))
        #expect(log.wait { $0.eventNames.contains("socketError") })
        let error = log.events.compactMap { if case .socketError(let error) = $0 { error } else { nil } }.first
        #expect(error?.message.contains("verify") == true)
        #expect(fixture.mock.records.isEmpty)
    }

    @Test("an idle socket is closed after connectionTimeout with a timeout event")
    func idleTimeout() async throws {
        let fixture = try GatewayFixture()
        let clock = ManualClock()
        let log = ConnectionLog()
        let connection = Connection(options: fixture.options {
            $0.clock = .manual(clock)
            $0.connectionTimeout = .seconds(60)
            $0.minConnections = 0
        })
        log.listen(to: connection)
        connection.push(note(1), to: device(1))
        await fixture.expectRecords(1)
        #expect(log.wait { $0.eventNames.contains("completed") })
        await connection.acknowledgementBarrier()
        clock.advance(by: .seconds(61))
        #expect(log.wait { $0.eventNames.contains("disconnected") })
        #expect(log.eventNames.filter { $0 != "transmitted" } == ["connected", "completed", "timeout", "disconnected"])
        let report = await connection.shutdown()
        #expect(report.accepted == 1)
    }

    @Test("minConnections reopens a socket the gateway closed")
    func minConnectionsReopens() async throws {
        var faults = MockGateway.Faults()
        faults.closeAfter = 1
        let fixture = try GatewayFixture(faults: faults)
        let log = ConnectionLog()
        let connection = Connection(options: fixture.options { $0.minConnections = 1 })
        log.listen(to: connection)
        connection.push(note(1), to: device(1))
        #expect(log.wait { $0.eventNames.filter { $0 == "connected" }.count == 2 })
        await connection.shutdown()
    }

    @Test("shutdown asked before unusable credentials are found still completes (513 for what waited)")
    func shutdownBeforeCredentialFailure() async throws {
        let fixture = try GatewayFixture()
        let connection = Connection(options: fixture.options {
            $0.cert = "/nonexistent/swift-apn/cert.pem"
            $0.connectTimeout = nil
        })
        connection.push(note(1), to: device(1))
        let report = await connection.shutdown()
        #expect(report.failed == 1)
        #expect(failureCode(report.notAccepted.first?.outcome) == .initialisationFailed)
    }

    @Test("shutdown with nothing to send does not wait out a minConnections socket's backoff")
    func shutdownWhileBackingOff() async throws {
        let fixture = try GatewayFixture()
        let log = ConnectionLog()
        let connection = Connection(options: fixture.options { $0.initialBackoff = .seconds(3600) })
        log.listen(to: connection)
        connection.push(note(1), to: device(1), outcome: log.outcome(1))
        #expect(log.wait { $0.outcomes[1] != nil })
        _ = fixture.mock.stop()
        // The gateway is gone: minConnections reopens, fails, and backs off for an hour.
        #expect(log.wait { $0.eventNames.contains("socketError") })
        let report = await connection.shutdown()
        #expect(report.accepted == 1 && report.total == 1, "the earlier acceptance, and nothing else")
    }
}
