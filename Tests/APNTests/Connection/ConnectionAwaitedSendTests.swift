import APN
import APNMockGateway
import Testing
import APNTestSupport
import APNTestTraits

/// `await connection.send(note, to: device)` against a gateway with latency: each is
/// accepted by the answer to the confirmation marker written after it, not by the grace
/// window — which, on a manual clock the tests never move, cannot pass (#27 item 7).
@Suite("Connection: an awaited send is confirmed by a marker", .timeLimit(.minutes(10)), .threadPerTest)
struct ConnectionAwaitedSendTests {
    /// A gateway 20 ms away each way (its answers travel as long), which waits a minute for
    /// a handshake on a loaded machine.
    static func remoteFixture(_ faults: MockGateway.Faults = MockGateway.Faults()) throws -> GatewayFixture {
        var faults = faults
        faults.latency = .milliseconds(20)
        return try GatewayFixture(faults: faults) { $0.handshakeTimeout = .seconds(60) }
    }

    @Test("a loop of awaited sends: each accepted by its own marker's answer, one connection each")
    func loopOfSends() async throws {
        let fixture = try Self.remoteFixture()
        let clock = ManualClock()
        let connection = Connection(options: fixture.options { $0.clock = .manual(clock) })
        for n in 1...5 {
            let outcome = await connection.send(note(n), to: device(n))
            #expect(outcome == .accepted(Acceptance(evidence: .flush)), "send \(n)")
        }
        #expect(fixture.mock.recordCount == 5)
        #expect(fixture.mock.markerCount == 5, "one marker each")
        #expect(fixture.mock.rejections.isEmpty, "markers are not rejections")
        #expect(Set(fixture.mock.records.map(\.connection)).count == 5, "the gateway closes after each answer")
        let report = await connection.shutdown()
        #expect(report.accepted == 5)
    }

    @Test("a refused one is rejected by the answer that names it; the marker after it was thrown away")
    func rejectedSend() async throws {
        var faults = MockGateway.Faults()
        faults.rejectToken(device(2).token)
        let fixture = try Self.remoteFixture(faults)
        let clock = ManualClock()
        let connection = Connection(options: fixture.options { $0.clock = .manual(clock) })
        var outcomes: [NotificationOutcome] = []
        for n in 1...3 { outcomes.append(await connection.send(note(n), to: device(n))) }
        #expect(outcomes == [
            .accepted(Acceptance(evidence: .flush)), .rejected(.invalidToken), .accepted(Acceptance(evidence: .flush)),
        ])
        #expect(fixture.mock.recordCount == 2)
        #expect(fixture.mock.markerCount == 2)
        #expect(fixture.mock.rejections.map(\.status) == [.invalidToken])
        await connection.shutdown()
    }

    @Test("concurrent awaited sends, however the I/O thread batches them, are all settled by markers")
    func concurrentSends() async throws {
        let fixture = try Self.remoteFixture()
        let clock = ManualClock()
        let connection = Connection(options: fixture.options { $0.clock = .manual(clock) })
        let outcomes = await withTaskGroup(of: NotificationOutcome.self) { group in
            for n in 1...10 { group.addTask { await connection.send(note(n), to: device(n)) } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(outcomes.count == 10)
        #expect(outcomes.allSatisfy { $0 == .accepted(Acceptance(evidence: .flush)) }, "\(outcomes)")
        #expect(fixture.mock.recordCount == 10)
        #expect((1...10).contains(fixture.mock.markerCount), "one marker per batch the socket wrote")
        await connection.shutdown()
    }
}
