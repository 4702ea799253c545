import APNTLS
import APNMockGateway
import APNTestSupport
import APNTestTraits
import Testing

/// Starting, configuration and prompt stopping.
@Suite(.threadPerTest) struct LifecycleTests {
    @Test func bindsTwoLoopbackPortsAndStopsPromptlyWithAnIdleClient() throws {
        let harness = try Harness()
        #expect(harness.gateway.gatewayPort != 0)
        #expect(harness.gateway.feedbackPort != 0)
        #expect(harness.gateway.gatewayPort != harness.gateway.feedbackPort)
        let client = try harness.connect()  // connected, sends nothing

        #expect(harness.gateway.stop(timeout: .seconds(5)), "stop() returns true once every thread ended")
        #expect(try client.readToEnd().end != .timedOut)
        #expect(harness.gateway.stop())  // again: nothing left to wait for
    }

    @Test func waitForRecordsTimesOutWhenNothingComes() throws {
        let harness = try Harness()
        let started = ContinuousClock.now
        #expect(!harness.gateway.waitForRecords(count: 1, timeout: .milliseconds(100)))
        #expect(ContinuousClock.now - started >= .milliseconds(100))
    }

    @Test func acceptsClientsWithoutCertificatesWhenNotRequired() throws {
        let harness = try Harness { $0.requiresClientCertificate = false }
        let anonymous = try TLSClientContext(trustedCertificates: [harness.gateway.certificateAuthority.certificate])
        let client = try harness.connect(context: anonymous)
        try client.send(enhancedFrames(1...1))
        #expect(harness.records(waitingFor: 1) == [enhancedRecord(1, connection: 1, sequence: 1)])
    }

    @Test func usesTheCertificateAuthorityItIsGiven() throws {
        let authority = try CertificateAuthority(commonName: "Given CA")
        let harness = try Harness { $0.certificateAuthority = authority }
        #expect(harness.gateway.certificateAuthority === authority)
        let client = try harness.connect()  // the client trusts and is certified by the given CA
        try client.send(enhancedFrames(1...1))
        #expect(harness.records(waitingFor: 1).count == 1)
    }

    @Test(arguments: [true, false])
    func honoursSessionTicketsAndVersions(sessionTickets: Bool) throws {
        let harness = try Harness {
            $0.sessionTickets = sessionTickets
            $0.minimumVersion = .tls1_3
        }
        let client = try harness.connect()
        #expect(client.connection.protocolVersion == "TLSv1.3")
        try client.send(enhancedFrames(1...1))
        #expect(harness.records(waitingFor: 1).count == 1)
    }
}

/// ``MockGateway/stop(timeout:)`` ends connections whatever remote-gateway fault they wait on.
@Suite(.threadPerTest) struct StopWhileWaitingTests {
    enum Waiting: String, CaseIterable, Sendable {
        case latency, readRate, errorResponseDelay, trickle
    }

    @Test(arguments: Waiting.allCases)
    func stopEndsAConnectionWaitingOn(_ waiting: Waiting) throws {
        var faults = MockGateway.Faults()
        switch waiting {
        case .latency: faults.latency = .seconds(600)
        case .readRate: faults.readRate = 1
        case .errorResponseDelay: faults.errorResponseDelay = .seconds(600)
        case .trickle: faults.errorResponseByteInterval = .seconds(600)
        }
        if waiting == .errorResponseDelay || waiting == .trickle { faults.rejectIdentifier(2) }
        let harness = try Harness(faults: faults)
        let client = try harness.connect()
        try client.send(enhancedFrames(1...5))
        switch waiting {
        case .latency: break  // nothing to wait for: the bytes are held, or about to be
        case .readRate: #expect(harness.gateway.waitForRecords(count: 1, timeout: .seconds(10)))
        case .errorResponseDelay, .trickle:
            #expect(harness.gateway.waitForRejections(count: 1, timeout: .seconds(10)))
        }

        #expect(harness.gateway.stop(timeout: .seconds(5)), "every thread ended")
        #expect(try client.readToEnd().end != .timedOut)
        switch waiting {
        case .latency: #expect(harness.gateway.recordCount == 0)
        case .readRate: #expect(harness.gateway.recordCount < 5)  // one a second
        case .errorResponseDelay, .trickle: #expect(harness.gateway.recordCount == 1)
        }
    }
}
