import APN
import APNWire
import APNMockGateway
import Testing
import APNTestSupport
import APNTestTraits

@Suite("Connection: delivery end to end", .timeLimit(.minutes(10)), .threadPerTest)
struct ConnectionDeliveryTests {
    @Test("pushed notifications arrive in order as command 1 with identifiers from 1, and are accepted")
    func deliversInOrder() async throws {
        let fixture = try GatewayFixture()
        let log = ConnectionLog()
        let connection = Connection(options: fixture.options())
        log.listen(to: connection)
        for n in 1...50 { connection.push(note(n), to: device(n), outcome: log.outcome(n)) }
        await fixture.expectRecords(50)
        let records = fixture.mock.records
        #expect(records.map { number(of: $0.token) } == Array(1...50))
        #expect(records.map(\.identifier) == (1...50).map { UInt32($0) })
        #expect(records.allSatisfy { $0.command == .enhanced })
        #expect(records[6].payload == Array(#"{"aps":{"alert":"n7"}}"#.utf8))
        let report = await connection.shutdown()
        #expect(report.accepted == 50)
        #expect(report.notAccepted.isEmpty)
        #expect(log.outcomes.count == 50)
        #expect(log.outcomes.values.allSatisfy { $0 == .accepted(Acceptance(evidence: .graceWindow)) })
        #expect(log.eventNames.first == "connected")
        #expect(log.eventNames.contains("completed"))
        #expect(log.eventNames.last == "disconnected")
    }

    @Test("send awaits one notification's outcome; a confirmed flush proves acceptance", arguments: [
        Command.enhanced, .frame,
    ])
    func sendAndFlush(format: Command) async throws {
        let fixture = try GatewayFixture()
        let connection = Connection(options: fixture.options { $0.format = format; $0.shutdownGraceWindow = .seconds(30) })
        for n in 1...9 { connection.push(note(n), to: device(n)) }
        let report = await connection.flush(confirm: true)
        #expect(report.confirmed)
        #expect(report.accepted == 9)
        #expect(fixture.mock.records.count == 9)
        #expect(fixture.mock.records.first?.command == format)
        let log = ConnectionLog()
        connection.push(note(10), to: device(10), outcome: log.outcome(10))
        let second = await connection.flush()
        #expect(second.accepted == 1)
        #expect(log.wait { $0.outcomes[10] != nil })
        #expect(log.outcomes[10] == .accepted(Acceptance(evidence: .flush)))
        await connection.shutdown()
    }

    @Test("send(_:to:) with nothing else queued returns the outcome a confirmation marker's answer gave")
    func sendAwaitsTheOutcome() async throws {
        let fixture = try GatewayFixture()
        let connection = Connection(options: fixture.options())
        let outcome = await connection.send(note(1), to: device(1))
        #expect(outcome == .accepted(Acceptance(evidence: .flush)))
        #expect(fixture.mock.records.count == 1)
        #expect(fixture.mock.markerCount == 1)
        #expect(fixture.mock.rejections.isEmpty, "the marker is no rejection")
        await connection.shutdown()
    }

    @Test("command 0 (simple): delivered without identifiers; a flush cannot be confirmed")
    func simpleFormat() async throws {
        let fixture = try GatewayFixture()
        let connection = Connection(options: fixture.options { $0.format = .simple })
        for n in 1...5 { connection.push(note(n), to: device(n)) }
        await fixture.expectRecords(5)
        #expect(fixture.mock.records.allSatisfy { $0.command == .simple && $0.identifier == nil })
        let flushed = await connection.flush(confirm: true)
        #expect(!flushed.confirmed)
        let report = await connection.shutdown()
        #expect(flushed.accepted + report.accepted == 5)
    }

    @Test("payload limits by format: 256 for command 1, 2048 for command 2, 4096 with voip")
    func payloadLimits() async throws {
        // Apple's VoIP gateway took 4096-byte payloads; the mock takes what it is told to.
        let fixture = try GatewayFixture { $0.limits = GatewayDecoder.Limits(framePayloadLimit: 4096) }
        let big = APN.Notification().setAlertText(String(repeating: "x", count: 3000))
        let enhanced = Connection(options: fixture.options())
        let voip = Connection(options: fixture.options { $0.format = .frame; $0.voip = true })
        let frame = Connection(options: fixture.options { $0.format = .frame })
        let log = ConnectionLog()
        enhanced.push(big, to: device(1), outcome: log.outcome(1))
        frame.push(big, to: device(2), outcome: log.outcome(2))
        voip.push(big, to: device(3), outcome: log.outcome(3))
        #expect(log.wait { $0.outcomes.count == 3 })
        #expect(failureCode(log.outcomes[1]) == .payloadTooLarge)
        #expect(failureCode(log.outcomes[2]) == .payloadTooLarge)
        #expect(log.outcomes[3]?.isAccepted == true)
        for connection in [enhanced, frame, voip] { await connection.shutdown() }
        #expect(fixture.mock.records.count == 1)
    }

    @Test("what the format cannot carry is refused with a typed error, never sent without it")
    func fieldsTheFormatCannotCarry() async throws {
        let fixture = try GatewayFixture()
        let enhanced = Connection(options: fixture.options())
        let simple = Connection(options: fixture.options { $0.format = .simple })
        let frame = Connection(options: fixture.options { $0.format = .frame; $0.shutdownGraceWindow = .seconds(30) })
        let log = ConnectionLog()
        let quiet = APN.Notification().setAlertText("later")
        quiet.priority = 5
        let expiring = APN.Notification().setAlertText("soon").setExpiry(2_000_000_000)
        enhanced.push(quiet, to: device(1), outcome: log.outcome(1))
        simple.push(expiring, to: device(2), outcome: log.outcome(2))
        enhanced.push(expiring, to: device(3), outcome: log.outcome(3))
        frame.push(quiet, to: device(4), outcome: log.outcome(4))
        #expect(log.wait { $0.outcomes[1] != nil && $0.outcomes[2] != nil })
        #expect(failureCode(log.outcomes[1]) == .unsupportedByFormat)
        #expect(failureCode(log.outcomes[2]) == .unsupportedByFormat)
        if case .failed(let error)? = log.outcomes[1] {
            #expect(error.message.contains("priority 5") && error.message.contains(".frame"))
        }
        #expect(await frame.flush().confirmed)
        for connection in [enhanced, simple, frame] { await connection.shutdown() }
        #expect(log.outcomes[3]?.isAccepted == true, "command 1 carries an expiry")
        #expect(log.outcomes[4]?.isAccepted == true, "command 2 carries the priority")
        let records = fixture.mock.records
        #expect(records.map { number(of: $0.token) }.sorted() == [3, 4])
        #expect(records.first { number(of: $0.token) == 4 }?.priority == 5)
    }

    @Test("timeouts of zero are off, as node-apn's 0: the connection is made, and kept once idle")
    func zeroTimeoutsAreOff() async throws {
        let fixture = try GatewayFixture()
        let connection = Connection(options: fixture.options {
            $0.connectTimeout = .zero
            $0.connectionTimeout = .zero
            $0.shutdownGraceWindow = .milliseconds(50)
        })
        let log = ConnectionLog()
        log.listen(to: connection)
        // Pushed, not sent: an awaited send would be confirmed by a marker, whose answer
        // closes the connection.
        let outcome = await withCheckedContinuation { done in
            connection.push(note(1), to: device(1)) { done.resume(returning: $0) }
        }
        #expect(outcome == .accepted(Acceptance(evidence: .graceWindow)))
        // Idle from the moment the grace window accepted it: a zero idle timeout taken as
        // "at once" would have closed the socket in that same turn. A flush without
        // confirmation returns after everything that turn reported has been delivered.
        _ = await connection.flush(confirm: false)
        #expect(!log.eventNames.contains("timeout"))
        #expect(!log.eventNames.contains("disconnected"))
        #expect(fixture.mock.openConnectionCount == 1)
        await connection.shutdown()
    }
}
