import APN
import APNWire
import APNMockGateway
import Testing
import APNTestSupport
import APNTestTraits

/// node-apn's errorCallback situations (PROTOCOL.md §4), end to end over TLS.
@Suite("Connection: errorCallback, rejections and resends", .timeLimit(.minutes(10)), .threadPerTest)
struct ConnectionErrorTests {
    @Test("a rejection: errorCallback(status, notification), later ones resent in order, nothing lost")
    func rejectionResendsWhatFollowed() async throws {
        var faults = MockGateway.Faults()
        faults.rejectToken(device(3).token)
        let fixture = try GatewayFixture(faults: faults)
        let (log, connection) = fixture.loggedConnection()
        for n in 1...10 { connection.push(note(n), to: device(n), outcome: log.outcome(n)) }
        let report = await connection.shutdown()
        #expect(report.rejected == 1)
        #expect(report.accepted == 9)
        #expect(report.notAccepted.map { $0.device } == [device(3)])
        #expect(log.outcomes[3] == .rejected(.invalidToken))
        #expect(log.outcomes[2] == .accepted(Acceptance(evidence: .laterIdentifier)))
        #expect(log.callbacks.count == 1)
        #expect(log.callbacks.first?.code == .status(.invalidToken))
        #expect(log.callbacks.first?.device == device(3))
        let recorded = fixture.mock.records.map { number(of: $0.token) }
        #expect(recorded == [1, 2, 4, 5, 6, 7, 8, 9, 10], "4…10 resent in order on a new connection")
        #expect(fixture.mock.records.last?.connection == 2)
        #expect(log.events.contains { if case .transmissionError(.invalidToken, _, device(3)?) = $0 { true } else { false } })
        #expect(log.duplicateOutcomes.isEmpty)
    }

    @Test("an array push: each report names its own device (one record serves the whole array)")
    func arrayPushReportsEachDevice() async throws {
        var faults = MockGateway.Faults()
        faults.rejectToken(device(7).token)
        let fixture = try GatewayFixture(faults: faults)
        let (log, connection) = fixture.loggedConnection()
        connection.push(note(1), to: (1...10).map(device))
        // Oversized: refused before queueing, every device of the array on its own.
        connection.push(APN.Notification().setAlertText(String(repeating: "x", count: 300)), to: [device(11), device(12)])
        let report = await connection.shutdown()
        #expect(report.accepted == 9)
        #expect(report.rejected == 1)
        #expect(report.failed == 2)
        // The refusals and the rejection come from different places (the I/O thread, the
        // gateway), so only their order within each is fixed.
        let refused = [device(11), device(12)]
        #expect(report.notAccepted.filter { failureCode($0.outcome) == .payloadTooLarge }.map(\.device) == refused)
        #expect(report.notAccepted.filter { $0.outcome == .rejected(.invalidToken) }.map(\.device) == [device(7)])
        #expect(log.callbacks.filter { $0.code == .status(.invalidPayloadSize) }.map(\.device) == refused)
        #expect(log.callbacks.filter { $0.code == .status(.invalidToken) }.map(\.device) == [device(7)])
        #expect(log.callbacks.count == 3)
        #expect(fixture.mock.records.map { number(of: $0.token) } == [1, 2, 3, 4, 5, 6, 8, 9, 10])
        let errors = log.events.compactMap { event -> (StatusCode, Device?)? in
            if case .transmissionError(let status, _, let device) = event { (status, device) } else { nil }
        }
        #expect(errors.filter { $0.0 == .invalidPayloadSize }.map(\.1) == refused)
        #expect(errors.filter { $0.0 == .invalidToken }.map(\.1) == [device(7)])
        var firstTransmissions: [Device] = []
        for case .transmitted(_, let device) in log.events where !firstTransmissions.contains(device) {
            firstTransmissions.append(device)
        }
        #expect(firstTransmissions == (1...10).map(device), "transmitted in push order, each naming its device")
    }

    @Test("an array push with an outcome handler: each index told its own outcome, once")
    func arrayPushOutcomes() async throws {
        var faults = MockGateway.Faults()
        faults.rejectToken(device(4).token)
        let fixture = try GatewayFixture(faults: faults)
        let log = ConnectionLog()
        let connection = Connection(options: fixture.options())
        let devices = (1...6).map(device)
        connection.push(note(1), to: devices) { index, outcome in log.outcome(index + 1)(outcome) }
        await connection.shutdown()
        #expect(log.outcomes.count == 6)
        #expect(log.duplicateOutcomes.isEmpty)
        #expect(log.outcomes[4] == .rejected(.invalidToken), "index 3 is device(4)")
        #expect([1, 2, 3, 5, 6].allSatisfy { log.outcomes[$0]?.isAccepted == true })
    }

    @Test("a notification's own errorCallback is called instead of the connection's")
    func perNotificationCallback() async throws {
        var faults = MockGateway.Faults()
        faults.rejectToken(device(2).token, status: .invalidTokenSize)
        let fixture = try GatewayFixture(faults: faults)
        let connectionLog = ConnectionLog()
        let ownLog = ConnectionLog()
        let connection = Connection(options: fixture.options { $0.errorCallback = connectionLog.errorCallback })
        let special = note(2).setErrorCallback { code, device in ownLog.errorCallback(code, nil, device) }
        connection.push(note(1), to: device(1))
        connection.push(special, to: device(2))
        await connection.shutdown()
        #expect(connectionLog.callbacks.isEmpty)
        #expect(ownLog.callbacks.map(\.code) == [.status(.invalidTokenSize)])
        #expect(ownLog.callbacks.first?.device == device(2))
    }

    @Test("local refusals: bad token 8, oversized payload 7, no device 2, after shutdown 515")
    func localRefusals() async throws {
        let fixture = try GatewayFixture()
        let (log, connection) = fixture.loggedConnection()
        connection.push(note(1), toTokens: ["not hex at all"])
        connection.push(APN.Notification().setAlertText(String(repeating: "x", count: 300)), to: device(2))
        connection.push(note(3))
        connection.push(note(4), to: device(4))
        let report = await connection.shutdown()
        #expect(report.failed == 3)
        #expect(report.accepted == 1)
        let codes = log.callbacks.map(\.code)
        #expect(codes == [.status(.invalidToken), .status(.invalidPayloadSize), .status(.missingDeviceToken)])
        #expect(report.notAccepted.map { failureCode($0.outcome) } == [.invalidToken, .payloadTooLarge, .missingDevice])
        #expect(fixture.mock.records.map { number(of: $0.token) } == [4])
        let late = ConnectionLog()
        connection.push(note(5), to: device(5), outcome: late.outcome(5))
        #expect(late.wait { $0.outcomes[5] != nil })
        #expect(failureCode(late.outcomes[5]) == .shutDown)
        #expect(late.outcomes[5].flatMap(failureStatus) == .connectionTerminated)
    }

    @Test("status 10: the named notification and older accepted, the rest resent once")
    func shutdownStatus() async throws {
        var faults = MockGateway.Faults()
        faults.shutdownAfter = 3
        let fixture = try GatewayFixture(faults: faults)
        let (log, connection) = fixture.loggedConnection()
        for n in 1...8 { connection.push(note(n), to: device(n), outcome: log.outcome(n)) }
        let report = await connection.shutdown()
        #expect(report.accepted == 8)
        #expect(log.outcomes[3] == .accepted(Acceptance(evidence: .shutdownIdentifier)))
        #expect(fixture.mock.records.map { number(of: $0.token) } == Array(1...8), "no duplicate, nothing lost")
        #expect(log.callbacks.isEmpty, "status 10 rejects nothing")
        #expect(log.events.contains { if case .transmissionError(.shutdown, nil, nil) = $0 { true } else { false } })
    }

    @Test("cache too small: cacheTooSmall, errorCallback(255, nil), the cache resent, the gap unknown fate")
    func cacheMiss() async throws {
        var faults = MockGateway.Faults()
        faults.rejectToken(device(3).token)
        faults.errorResponseDelay = .milliseconds(300)
        let fixture = try GatewayFixture(faults: faults)
        let (log, connection) = fixture.loggedConnection {
            $0.cacheLength = 5
            $0.shutdownGraceWindow = .seconds(2)  // longer than the gateway's 300 ms delay
        }
        for n in 1...40 { connection.push(note(n), to: device(n), outcome: log.outcome(n)) }
        // All 40 are written long before the delayed error response names the 3rd.
        let report = await connection.shutdown()
        #expect(report.total == 40)
        #expect(log.events.contains { if case .cacheTooSmall(let shortfall) = $0 { shortfall == 33 } else { false } })
        #expect(log.callbacks.contains { $0.code == .status(.unknown) && $0.notification == nil })
        #expect(log.outcomes[3] == .rejected(.invalidToken))
        for n in 4...35 { #expect(log.outcomes[n] == .unknownFate(.evictedFromCache), "n\(n)") }
        #expect(fixture.mock.records.map { number(of: $0.token) } == [1, 2, 36, 37, 38, 39, 40])
        #expect(report.unknownFate == 32)
    }

    @Test("silent close, report policy: what was written is reported unconfirmed, not resent")
    func silentCloseReports() async throws {
        var faults = MockGateway.Faults()
        faults.closeAfter = 5
        let fixture = try GatewayFixture(faults: faults)
        let (log, connection) = fixture.loggedConnection {
            $0.shutdownGraceWindow = .seconds(1)
            $0.silentClosePolicy = .reportUnconfirmed
        }
        for n in 1...20 { connection.push(note(n), to: device(n), outcome: log.outcome(n)) }
        #expect(log.wait { $0.outcomes.count == 20 })
        let unknown = log.outcomes.values.filter { $0 == .unknownFate(.unconfirmedAtClose) }.count
        let accepted = log.outcomes.values.filter(\.isAccepted).count
        #expect(unknown + accepted == 20)
        #expect(unknown >= 15, "the gateway took 5 and dropped the rest with the connection")
        #expect(log.callbacks.count == unknown, "errorCallback(error, n) once for each the close left unknown")
        #expect(log.callbacks.allSatisfy { if case .error = $0.code { true } else { false } })
        #expect(fixture.mock.records.count == 5 + accepted, "what the socket never took was sent on a new connection")
        await connection.shutdown()
    }

    @Test("silent close, default (resend) policy: every notification arrives, resent ones marked possibly duplicated")
    func silentCloseResends() async throws {
        var faults = MockGateway.Faults()
        faults.closeAfter = 5
        let fixture = try GatewayFixture(faults: faults)
        let (log, connection) = fixture.loggedConnection { $0.shutdownGraceWindow = .seconds(1) }
        for n in 1...20 { connection.push(note(n), to: device(n), outcome: log.outcome(n)) }
        let report = await connection.shutdown()
        #expect(report.accepted == 20)
        #expect(report.possiblyDuplicated >= 15)
        let numbers = Set(fixture.mock.records.map { number(of: $0.token) })
        #expect(numbers == Set(1...20), "none lost")
        // Resent with a marker after them: its answer settles them, possibly duplicated.
        #expect(log.outcomes[20] == .accepted(Acceptance(evidence: .flush, possiblyDuplicated: true)))
    }

    @Test("shutdown waits the grace window for a late error response")
    func shutdownWaitsForALateError() async throws {
        var faults = MockGateway.Faults()
        faults.rejectToken(device(3).token)
        faults.errorResponseDelay = .milliseconds(300)
        let fixture = try GatewayFixture(faults: faults)
        let (log, connection) = fixture.loggedConnection { $0.shutdownGraceWindow = .seconds(2) }
        for n in 1...5 { connection.push(note(n), to: device(n)) }
        let report = await connection.shutdown()
        #expect(report.rejected == 1)
        #expect(report.accepted == 4)
        #expect(log.callbacks.map(\.code) == [.status(.invalidToken)])
        #expect(fixture.mock.records.map { number(of: $0.token) } == [1, 2, 4, 5])
    }
}

func failureCode(_ outcome: NotificationOutcome?) -> APNError.Code? {
    if case .failed(let error)? = outcome { error.code } else { nil }
}

func failureStatus(_ outcome: NotificationOutcome) -> StatusCode? {
    if case .failed(let error) = outcome { error.status } else { nil }
}
