import APN
import APNMockGateway
import Testing
import APNTestSupport
import APNTestTraits

/// Issue #26 row 6: a ``Device`` now takes Apple's variable-length tokens (1 to 100 bytes),
/// but the binary interface carries 32-byte tokens only: a ``Connection`` refuses the
/// others itself, each with one outcome, and sends the rest.
@Suite("Connection: device tokens the binary interface cannot carry", .timeLimit(.minutes(10)), .threadPerTest)
struct ConnectionTokenLengthTests {
    @Test("8- and 64-byte devices fail with status 8 before the write; the 32-byte ones around them are delivered")
    func refusesOtherLengths() async throws {
        let fixture = try GatewayFixture()
        let (log, connection) = fixture.loggedConnection()
        let short = try Device("0123456789abcdef")
        let long = try Device(String(repeating: "0123456789abcdef", count: 8))
        let devices = [device(1), short, device(2), long]
        connection.push(note(1), to: devices) { index, outcome in log.outcome(index)(outcome) }
        await fixture.expectRecords(2)
        let report = await connection.shutdown()
        #expect(fixture.mock.records.map { number(of: $0.token) } == [1, 2])
        #expect(report.accepted == 2)
        #expect(log.wait { $0.outcomes.count == 4 })
        #expect(log.duplicateOutcomes.isEmpty, "one outcome each")
        for index in [1, 3] {
            guard case .failed(let error)? = log.outcomes[index] else {
                Issue.record("notification \(index): \(String(describing: log.outcomes[index]))")
                continue
            }
            #expect(error.code == .invalidToken && error.status == .invalidToken)
            let length = devices[index].token.count
            #expect(error.message == "device token is \(length) bytes; the binary interface carries 32-byte tokens only "
                + "(Apple's HTTP/2 API takes 1 to 100)")
        }
        #expect(log.callbacks.map(\.code) == [.status(.invalidToken), .status(.invalidToken)])
    }
}
