import APN
import APNBridge
import APNWire
import Foundation
import APNMockGateway
import APNTestSupport
import APNTestTraits
import Testing

/// The exactly-once guarantee with an upstream that misbehaves as a remote one does:
/// 100,000 notifications from a binary `Connection` through the bridge to an
/// `HTTP2MockGateway` that refuses tokens, answers 410s and 429s, sends GOAWAYs, resets
/// connections and fails outright for a while. Every notification ends in exactly one
/// outcome at the client, the upstream record holds each delivered one once, every refusal
/// is reported once with its mapped status, and the 410s are read back as feedback.
@Suite(.threadPerTest)
struct BridgeFaultsTests {
    /// Of `count` notifications, those whose token Apple refuses (BadDeviceToken → 8): one
    /// in every 10,000.
    static func refused(_ count: Int) -> Set<Int> { Set(stride(from: 4_321, to: count, by: 10_000)) }
    /// Those whose token Apple answers 410 (accepted, then served as feedback): one in
    /// every 10,000.
    static func unregistered(_ count: Int) -> Set<Int> { Set(stride(from: 777, to: count, by: 10_000)) }

    static func faults(_ count: Int) -> HTTP2MockGateway.Faults {
        let (refused, unregistered) = (refused(count), unregistered(count))
        var faults = HTTP2MockGateway.Faults()
        for n in refused { faults.rejectToken(device(n).hexString, reason: .badDeviceToken) }
        for n in unregistered { faults.unregisterToken(device(n).hexString, since: Date(timeIntervalSince1970: 1_700_000_000)) }
        return faults
    }

    /// The client's options: quick reconnects, as the bridge's backoff refuses them, and a
    /// grace window as long as the bridge may take to answer (its upstream's answers, a
    /// reconnect, retries): the binary protocol has no acknowledgement, so a client that
    /// stops listening early takes a late refusal for an acceptance.
    static func clientOptions(_ fixture: BridgeFixture) -> Connection.Options {
        var options = fixture.connectionOptions()
        options.shutdownGraceWindow = .seconds(60)
        options.initialBackoff = .milliseconds(50)
        options.maxBackoff = .milliseconds(400)
        options.connectionRetryLimit = 0
        return options
    }

    /// What every test checks: one outcome per notification, refusals as mapped, each
    /// accepted one delivered upstream at most once — exactly once unless the upstream
    /// lost its answer (the bridge's `maybeDelivered`) — and nothing else delivered.
    static func checkExactlyOnce(
        _ fixture: BridgeFixture, _ outcomes: Outcomes, count: Int, report: DeliveryReport
    ) async throws {
        let (refused, unregistered) = (refused(count), unregistered(count))
        let all = outcomes.all
        #expect(all.count == count, "every notification has an outcome: \(report)")
        #expect(outcomes.duplicates.isEmpty, "one outcome each")
        for n in refused { #expect(all[n] == .rejected(.invalidToken), "\(n): \(String(describing: all[n]))") }
        let accepted = Set(all.compactMap { n, outcome in if case .accepted = outcome { n } else { nil } })
        let others = all.values.filter { if case .accepted = $0 { false } else if case .rejected = $0 { false } else { true } }
        #expect(others.isEmpty, "no failed or unknown-fate outcome: \(report), \(others.prefix(3))")

        let summary = fixture.bridge.summary
        let upstream = fixture.upstream
        // A 410 is accepted at the client but not delivered; an answer the upstream lost
        // (maybe delivered) may or may not be in its record.
        let gone = Set(unregistered.map { device($0).hexString })
        let expected = accepted.count - gone.count - summary.counts.maybeDelivered
        #expect(await onThread { upstream.waitForRecords(count: expected, timeout: .seconds(60)) })
        let deliveries = fixture.deliveries()
        let duplicated = deliveries.filter { $0.value != 1 }
        #expect(duplicated.isEmpty, "delivered upstream more than once: \(duplicated.prefix(5))")
        let acceptedTokens = Set(accepted.map { device($0).hexString })
        let strays = Set(deliveries.keys).subtracting(acceptedTokens)
        #expect(strays.isEmpty, "delivered but not accepted at the client: \(strays.prefix(5))")
        let missing = acceptedTokens.subtracting(deliveries.keys).subtracting(gone)
        #expect(missing.count <= summary.counts.maybeDelivered, "only those of unknown fate upstream are missing")

        // The client was told each refusal once, with the status the bridge counted.
        var told: [StatusCode: Int] = [:]
        for case .rejected(let status) in all.values { told[status, default: 0] += 1 }
        // The bridge also counts the client's confirmation markers (status 2, refused by
        // the decoder): they are not notifications.
        var refusedNotifications = summary.counts.refused
        refusedNotifications[.missingDeviceToken] = nil
        #expect(told == refusedNotifications, "client \(told) vs bridge \(refusedNotifications)")

        // Every 410 answered is served once; one whose request was lost in a reset never
        // was answered (the mock counts its answers, the bridge its stored tuples).
        let answered410 = upstream.summary.reasons[.unregistered] ?? 0
        #expect(await fixture.wait { $0.feedbackStored == answered410 })
        let entries = try await Feedback(options: fixture.feedbackOptions()).read()
        #expect(entries.count == answered410)
        #expect(Set(entries.map(\.device.hexString)).isSubset(of: gone))
        if summary.counts.maybeDelivered == 0 { #expect(answered410 == gone.count) }
        #expect(entries.allSatisfy { $0.unixTime == 1_700_000_000 })
    }

    /// `count` notifications from a binary client through a bridge in front of an upstream
    /// with `faults` (and the refused and unregistered tokens), every outcome awaited and
    /// checked by ``checkExactlyOnce(_:_:count:report:)``; the fixture, for more checks.
    static func sendThrough(count: Int, _ faults: HTTP2MockGateway.Faults) async throws -> BridgeFixture {
        let fixture = try BridgeFixture(faults: faults)
        let outcomes = Outcomes()
        let connection = Connection(options: clientOptions(fixture))
        for n in 0..<count { connection.push(note(n), to: device(n), outcome: outcomes.recorder(n)) }
        _ = await connection.flush(confirm: true)
        let report = await connection.shutdown()
        try await checkExactlyOnce(fixture, outcomes, count: count, report: report)
        return fixture
    }

    @Test func refusalsThrottlingGoawaysAndAnOutage() async throws {
        let count = 100_000
        var faults = Self.faults(count)
        // The outage: the first 6,000 requests answered 500. With 1,000 streams in flight
        // each notification needs four failures to exhaust the provider's retries: a few
        // rounds of status 10 and the bridge's backoff.
        faults.failNextRequests(6_000)
        // Throttled: enough 429s that some notifications exhaust their retries (status 1).
        faults.throttle(afterAccepting: 30_000, refusing: 6_000)
        faults.goawayAfterRequests = 25_000
        let fixture = try await Self.sendThrough(count: count, faults)
        let summary = fixture.bridge.summary
        #expect(summary.counts.bridgeFailures >= 1, "the outage ended a connection with status 10")
        #expect((summary.counts.refused[.processingError] ?? 0) >= 1, "throttled past the retries: status 1")
        #expect(summary.counts.refusedByReason["TooManyRequests"] == summary.counts.refused[.processingError])
        #expect(summary.counts.maybeDelivered == 0, "a GOAWAY loses no answer")
        #expect(fixture.upstream.summary.connections >= 4, "GOAWAYs made the provider reconnect")
    }

    @Test func connectionResets() async throws {
        let count = 30_000
        var faults = Self.faults(count)
        faults.resetAfterRequests = 6_000
        let fixture = try await Self.sendThrough(count: count, faults)
        #expect(fixture.upstream.summary.connections >= 5, "each reset made the provider reconnect")
    }
}
