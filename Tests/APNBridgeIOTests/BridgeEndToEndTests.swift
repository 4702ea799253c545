import APN
import APNBridge
import APNTLS
import APNWire
import Foundation
import APNMockGateway
import Synchronization
import APNTestSupport
import APNTestTraits
import Testing

/// A real binary `Connection` → ``Bridge`` → `HTTP2MockGateway`, on loopback.
@Suite(.threadPerTest)
struct BridgeEndToEndTests {
    @Test func everyNotificationIsDeliveredExactlyOnce() async throws {
        let fixture = try BridgeFixture()
        let connection = Connection(options: fixture.connectionOptions())
        for n in 0..<1_000 { connection.push(note(n), to: device(n)) }
        let report = await connection.shutdown()
        #expect(report.accepted == 1_000, "\(report)")
        #expect(report.rejected == 0 && report.failed == 0 && report.unknownFate == 0)
        let upstream = fixture.upstream
        #expect(await onThread { upstream.waitForRecords(count: 1_000, timeout: .seconds(30)) })
        let deliveries = fixture.deliveries()
        #expect(deliveries.count == 1_000)
        #expect(deliveries.values.allSatisfy { $0 == 1 })
        #expect(Set(deliveries.keys) == Set((0..<1_000).map { device($0).hexString }))
        let summary = fixture.bridge.summary
        #expect(summary.counts.forwarded == 1_000)
        #expect(summary.counts.delivered == 1_000)
    }

    @Test func aRefusedTokenIsReportedAndNothingIsForwardedTwice() async throws {
        let refused = 500
        var faults = HTTP2MockGateway.Faults()
        faults.rejectToken(device(refused).hexString, reason: .badDeviceToken)
        let fixture = try BridgeFixture(faults: faults)
        let outcomes = Outcomes()
        let connection = Connection(options: fixture.connectionOptions())
        for n in 0..<1_000 { connection.push(note(n), to: device(n), outcome: outcomes.recorder(n)) }
        let report = await connection.shutdown()
        #expect(report.rejected == 1, "\(report)")
        #expect(report.accepted == 999, "\(report)")
        #expect(outcomes.all[refused] == .rejected(.invalidToken))
        #expect(outcomes.all.count == 1_000)
        #expect(outcomes.duplicates.isEmpty)
        let upstream = fixture.upstream
        #expect(await onThread { upstream.waitForRecords(count: 999, timeout: .seconds(30)) })
        let deliveries = fixture.deliveries()
        #expect(deliveries.count == 999)
        #expect(deliveries[device(refused).hexString] == nil)
        let duplicated = deliveries.filter { $0.value != 1 }
        #expect(duplicated.isEmpty, "delivered more than once: \(duplicated)")
        let summary = fixture.bridge.summary
        #expect(summary.counts.refused[.invalidToken] == 1)
        // Everything forwarded went upstream once: 999 accepted and the refused one; the
        // client's resends of what followed it were answered from the record.
        #expect(summary.counts.forwarded == 1_000)
        #expect(summary.counts.received == summary.counts.forwarded + summary.counts.resendsAnswered)
    }

    @Test func anUnregisteredTokenIsAcceptedAndServedAsFeedback() async throws {
        let since = Date(timeIntervalSince1970: 1_700_000_000)
        var faults = HTTP2MockGateway.Faults()
        faults.unregisterToken(device(7).hexString, since: since)
        let fixture = try BridgeFixture(faults: faults)
        let connection = Connection(options: fixture.connectionOptions())
        for n in 0..<10 { connection.push(note(n), to: device(n)) }
        let report = await connection.shutdown()
        #expect(report.accepted == 10, "\(report)")
        #expect(report.rejected == 0)
        #expect(await fixture.wait { $0.feedbackStored == 1 })
        let entries = try await Feedback(options: fixture.feedbackOptions()).read()
        #expect(entries == [Feedback.Entry(unixTime: 1_700_000_000, device: device(7))])
        #expect(await fixture.wait { $0.feedbackServed == 1 })
        // Served is gone: the next visit gets nothing.
        let again = try await Feedback(options: fixture.feedbackOptions()).read()
        #expect(again.isEmpty)
    }

    @Test func anUnregisteredTokenIsKeptInTheStoreUntilServed() async throws {
        let since = Date(timeIntervalSince1970: 1_700_000_123)
        var faults = HTTP2MockGateway.Faults()
        faults.unregisterToken(device(3).hexString, since: since)
        let fixture = try BridgeFixture(faults: faults, storeFeedback: true)
        let connection = Connection(options: fixture.connectionOptions())
        for n in 0..<5 { connection.push(note(n), to: device(n)) }
        let report = await connection.shutdown()
        #expect(report.accepted == 5, "\(report)")
        #expect(await fixture.wait { $0.feedbackStored == 1 })
        // Counted once the writer thread has written it to the store.
        let entries = try await Feedback(options: fixture.feedbackOptions()).read()
        #expect(entries == [Feedback.Entry(unixTime: 1_700_000_123, device: device(3))])
    }

    /// A raw TLS client of the fixture's tenant, handshake done.
    static func rawClient(_ fixture: BridgeFixture) throws -> TestClient {
        let client = try fixture.authority.issueClientCertificate(topic: BridgeFixture.topic)
        let context = try TLSClientContext(trustedCertificates: [fixture.authority.certificate], credentials: client.credentials())
        let connection = try TLSConnection.connect(
            host: "127.0.0.1", port: fixture.bridge.gatewayPort, context: context, timeout: .seconds(10))
        try connection.handshake(deadline: .now + .seconds(30))
        return TestClient(connection)
    }

    @Test func aRawClientReadsTheErrorResponseBytesAsApplesGatewayWroteThem() async throws {
        var faults = HTTP2MockGateway.Faults()
        faults.rejectToken(device(20).hexString, reason: .badDeviceToken)
        faults.rejectToken(device(30).hexString, reason: .payloadTooLarge)
        let fixture = try BridgeFixture(faults: faults)
        let raw = try Self.rawClient(fixture)
        var frames = WireBuffer()
        for n in 0..<50 {
            frames.writeFrameNotification(
                identifier: UInt32(1_000 + n), expiry: 0, priority: 10, token: device(n).token,
                payload: Array(#"{"aps":{"alert":"raw \#(n)"}}"#.utf8))
        }
        try raw.send(frames.readableBytesArray)
        let transcript = try raw.readToEnd(timeout: .seconds(30))
        // Command 8, status 8, the earliest refused one's identifier; then the close. The
        // later refusal (30, status 7) is never written: the client resends from 21.
        #expect(transcript.bytes == [8, 8, 0x00, 0x00, 0x03, 0xFC], "\(transcript.bytes)")
        #expect(transcript.end != .timedOut)
        var decoder = ErrorResponseDecoder()
        decoder.feed(transcript.bytes)
        #expect(try decoder.next() == ErrorResponse(status: .invalidToken, identifier: 1_020))
        let upstream = fixture.upstream
        #expect(await onThread { upstream.waitForRecords(count: 20, timeout: .seconds(30)) })
        let deliveries = fixture.deliveries()
        #expect((0..<20).allSatisfy { deliveries[device($0).hexString] == 1 })
        #expect(deliveries[device(20).hexString] == nil)
    }

    /// #42 item 4: half a frame, then nothing: the connection ends at the frame timeout,
    /// what came before it answered (here: delivered, so nothing is written back).
    @Test func aFrameLeftUnfinishedEndsItsConnection() async throws {
        let fixture = try BridgeFixture { $0.frameTimeout = .milliseconds(300) }
        let raw = try Self.rawClient(fixture)
        var frames = WireBuffer()
        for n in 0..<2 {
            frames.writeFrameNotification(
                identifier: UInt32(n), expiry: 0, priority: 10, token: device(n).token,
                payload: Array(#"{"aps":{"alert":"half \#(n)"}}"#.utf8))
        }
        let whole = frames.readableBytesArray
        try raw.send(Array(whole[..<(whole.count - 10)]))
        let transcript = try raw.readToEnd(timeout: .seconds(30))
        #expect(transcript.bytes.isEmpty, "the first was delivered: nothing to tell")
        #expect(transcript.end != .timedOut, "the bridge ended the connection")
        #expect(await fixture.wait { $0.counts.delivered == 1 && $0.counts.received == 1 })
    }

    /// #42: a reload after the stop began changes nothing (a tenant it added would never
    /// be withdrawn); before it, the same configuration reloads every tenant.
    @Test func aReloadIsRefusedOnceStopping() throws {
        let fixture = try BridgeFixture()
        let reload = try fixture.bridge.reload(fixture.bridge.configuration)
        #expect(reload.reloaded == ["app"] && reload.added.isEmpty && reload.needsRestart.isEmpty, "\(reload)")
        fixture.bridge.stop(grace: .zero)
        #expect(throws: BridgeConfigurationError.self) { try fixture.bridge.reload(fixture.bridge.configuration) }
    }

    /// #44: the upstream's proxy is taken at start; a reload that changes it says so.
    @Test func aProxyChangedAtReloadNeedsARestart() throws {
        let fixture = try BridgeFixture()
        var configuration = fixture.bridge.configuration
        configuration.upstream.proxy = HTTPProxy(host: "127.0.0.1", port: 3128)
        #expect(try fixture.bridge.reload(configuration).needsRestart == ["proxy"])
    }

    @Test func anUnknownClientCertificateIsRefused() async throws {
        let fixture = try BridgeFixture()
        let stranger = try fixture.authority.issueClientCertificate(topic: "com.example.stranger")
        let context = try TLSClientContext(
            trustedCertificates: [fixture.authority.certificate], credentials: stranger.credentials())
        let connection = try TLSConnection.connect(
            host: "127.0.0.1", port: fixture.bridge.gatewayPort, context: context, timeout: .seconds(10))
        try connection.handshake(deadline: .now + .seconds(30))
        let client = TestClient(connection)
        let transcript = try client.readToEnd(timeout: .seconds(30))
        #expect(transcript.bytes.isEmpty)
        #expect(transcript.end != .timedOut)
        #expect(await fixture.wait { $0.refusedConnections == 1 })
        #expect(fixture.bridge.summary.counts.connections == 0)
        #expect(fixture.upstream.recordCount == 0)
    }
}

/// Every outcome a connection reported, by notification number.
final class Outcomes: Sendable {
    private struct State {
        var outcomes: [Int: NotificationOutcome] = [:]
        var duplicates: [Int] = []
    }

    private let state = Mutex(State())

    var all: [Int: NotificationOutcome] { state.withLock { $0.outcomes } }
    var duplicates: [Int] { state.withLock { $0.duplicates } }

    func recorder(_ n: Int) -> @Sendable (NotificationOutcome) -> Void {
        { [self] outcome in
            state.withLock { state in
                if state.outcomes[n] != nil { state.duplicates.append(n) }
                state.outcomes[n] = outcome
            }
        }
    }
}
